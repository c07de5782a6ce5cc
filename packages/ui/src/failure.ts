/**
 * A failed call as a person reads it: the message for its code (or, without one, for its status),
 * with when to try again filled in from `Retry-After`.
 */
import { KeysApiError } from "./keys-client.js";
import type { ErrorMessageKey, KeywardMessages } from "./messages.js";

export interface Failure {
  /** HTTP status; 0 when the server could not be reached. */
  status: number;
  /** The code of docs/errors.md, when the answer had one. */
  code: string | undefined;
  /** The sentence to show. */
  text: string;
  /** A 401: nobody is signed in, or the session is no longer valid. */
  signedOut: boolean;
}

export function describeFailure(
  error: unknown,
  messages: KeywardMessages,
  locale: string | undefined,
): Failure {
  if (!(error instanceof KeysApiError)) {
    const text = `${messages.errors.unknown} ${error instanceof Error ? error.message : String(error)}`;
    return { status: 0, code: undefined, text, signedOut: false };
  }
  const key = messageKey(error, messages);
  const retry =
    error.retryAfterSeconds === undefined
      ? messages.states.retryLater
      : messages.states.retryIn.replace("{retry}", retryPhrase(error.retryAfterSeconds, locale));
  let text = messages.errors[key].replace("{retry}", retry).trim();
  if (key === "unknown") text = `${text} ${error.message}`;
  return { status: error.status, code: error.code, text, signedOut: error.status === 401 };
}

function messageKey(error: KeysApiError, messages: KeywardMessages): ErrorMessageKey {
  // hasOwnProperty, not Object.hasOwn: the package targets ES2021.
  if (error.code && Object.hasOwn(messages.errors, error.code)) {
    return error.code as ErrorMessageKey;
  }
  if (error.status === 0) return "unreachable";
  if (error.status === 401) return "invalid_token";
  if (error.status === 403) return "forbidden";
  if (error.status === 404) return "route_not_found";
  if (error.status === 422) return "validation_failed";
  if (error.status === 429) return "rate_limited";
  if (error.status >= 500) return "server_error";
  return "unknown";
}

/** `Retry-After` as people say it, in the element's locale: "in 45 seconds", "in 2 minutes". */
export function retryPhrase(seconds: number, locale: string | undefined): string {
  const format = new Intl.RelativeTimeFormat(locale, { numeric: "auto" });
  if (seconds < 60) return format.format(Math.max(1, seconds), "second");
  if (seconds < 3_600) return format.format(Math.ceil(seconds / 60), "minute");
  if (seconds < 86_400) return format.format(Math.ceil(seconds / 3_600), "hour");
  return format.format(Math.ceil(seconds / 86_400), "day");
}
