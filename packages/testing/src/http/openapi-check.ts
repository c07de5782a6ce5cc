/**
 * Checks an answer against an OpenAPI 3.1 document: the operation its method and path name, a
 * status that operation describes, the header fields it requires (and the described ones that are
 * present, against their schemas), and the body against the response's JSON Schema (ajv, draft
 * 2020-12, formats checked). A request no operation takes must be answered 404 (no such path) or
 * 405 with `Allow` naming the path's documented methods, with the document's error body.
 */
import type { OpenApiDocument } from "@keyward/core";
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";

export interface CheckedReply {
  status: number;
  headers: Headers;
  text: string;
  body: unknown;
}

/** Returns the problems with `reply` as an answer to `method path`; empty when it matches. */
export type OpenApiResponseCheck = (method: string, path: string, reply: CheckedReply) => string[];

type Json = Record<string, unknown>;

const documentId = "https://keyward.test/openapi.json";
const methods = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];

/**
 * @example
 * const check = openApiResponseCheck(keyward.openapi());
 * expect(check("GET", "/api/v1/api-keys", reply)).toEqual([]);
 */
export function openApiResponseCheck(document: OpenApiDocument): OpenApiResponseCheck {
  // The document is added whole, so a body schema is compiled by its JSON pointer and its `$ref`s
  // to `#/components/…` resolve inside it. `strict: false`: OpenAPI keywords sit beside schemas.
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
  addFormats(ajv);
  ajv.addSchema(document as unknown as Json, documentId);
  const paths = Object.keys(document.paths).map((template) => ({
    template,
    segments: template.split("/").filter(Boolean),
  }));

  const validatorAt = (pointer: string) => {
    const id = `${documentId}#${pointer}`;
    return ajv.getSchema(id) ?? ajv.compile({ $ref: id });
  };
  const resolve = (value: unknown): Json => {
    let current = value as Json;
    for (let hops = 0; typeof current?.$ref === "string" && hops < 10; hops++) {
      current = pointerGet(document, (current.$ref as string).replace(/^#/, "")) as Json;
    }
    return current;
  };

  const checkBody = (problems: string[], response: Json, pointer: string, reply: CheckedReply) => {
    const content = response.content as Record<string, Json> | undefined;
    if (!content) {
      if (reply.text !== "")
        problems.push(`a body where the document describes none: ${reply.text}`);
      return;
    }
    const contentType = reply.headers.get("content-type") ?? "";
    const mediaType = Object.keys(content).find((type) => contentType.startsWith(type));
    if (!mediaType) {
      problems.push(`content-type "${contentType}", described: ${Object.keys(content).join(", ")}`);
      return;
    }
    if (reply.body === undefined) {
      problems.push(`a body that is not JSON: ${reply.text.slice(0, 200)}`);
      return;
    }
    const validate = validatorAt(`${pointer}/content/${escapePointer(mediaType)}/schema`);
    if (!validate(reply.body)) {
      problems.push(`body ${ajv.errorsText(validate.errors, { dataVar: "body" })}`);
    }
  };

  const checkHeaders = (problems: string[], response: Json, reply: CheckedReply) => {
    const headers = (response.headers ?? {}) as Record<string, Json>;
    for (const [name, declared] of Object.entries(headers)) {
      const header = resolve(declared);
      const value = reply.headers.get(name);
      if (value === null) {
        if (header.required) problems.push(`header ${name} is required and missing`);
        continue;
      }
      const schema = (header.schema ?? {}) as Json;
      const validate = ajv.compile(schema);
      if (!validate(headerValue(value, schema))) {
        problems.push(
          `header ${name}: "${value}" ${ajv.errorsText(validate.errors, { dataVar: "" })}`,
        );
      }
    }
  };

  return (method, path, reply) => {
    const problems: string[] = [];
    const segments = new URL(path, "http://x").pathname.split("/").filter(Boolean);
    const matched = matchPath(paths, segments);
    const lowerMethod = method.toLowerCase();
    if (!matched) {
      if (reply.status !== 404) problems.push(`no documented path, yet answered ${reply.status}`);
      checkUndocumented(problems, reply, validatorAt("/components/schemas/Error"), ajv);
      return problems;
    }
    const item = document.paths[matched] as Json;
    const operation = item[lowerMethod] as Json | undefined;
    if (!operation) {
      const documented = methods.filter((name) => name in item).map((name) => name.toUpperCase());
      if (reply.status !== 405) {
        problems.push(`${method} is not documented on ${matched}, yet answered ${reply.status}`);
      }
      const allow = (reply.headers.get("allow") ?? "").split(",").map((name) => name.trim());
      for (const name of documented) {
        if (name !== "OPTIONS" && !allow.includes(name)) {
          problems.push(`Allow "${allow.join(", ")}" lacks documented ${name}`);
        }
      }
      checkUndocumented(problems, reply, validatorAt("/components/schemas/Error"), ajv);
      return problems;
    }
    const responses = operation.responses as Record<string, unknown>;
    const statusKey = [String(reply.status), `${String(reply.status)[0]}XX`, "default"].find(
      (key) => key in responses,
    );
    if (!statusKey) {
      problems.push(
        `${method} ${matched} answered ${reply.status}, which it does not describe (${Object.keys(responses).join(", ")}): ${reply.text.slice(0, 300)}`,
      );
      return problems;
    }
    const pointer = responsePointer(responses[statusKey], matched, lowerMethod, statusKey);
    const response = resolve(responses[statusKey]);
    checkHeaders(problems, response, reply);
    checkBody(problems, response, pointer, reply);
    return problems.map((problem) => `${method} ${matched} → ${reply.status}: ${problem}`);
  };
}

function checkUndocumented(
  problems: string[],
  reply: CheckedReply,
  validate: ReturnType<Ajv2020["compile"]>,
  ajv: Ajv2020,
): void {
  if (!validate(reply.body)) {
    problems.push(`error body ${ajv.errorsText(validate.errors, { dataVar: "body" })}`);
  }
}

/** The documented path for these segments: literal segments beat `{parameters}`. */
function matchPath(
  paths: { template: string; segments: string[] }[],
  segments: string[],
): string | undefined {
  let best: { template: string; literals: number } | undefined;
  for (const path of paths) {
    if (path.segments.length !== segments.length) continue;
    let literals = 0;
    const fits = path.segments.every((segment, index) => {
      if (/^\{[^}]+\}$/.test(segment)) return true;
      literals++;
      return segment === segments[index];
    });
    if (fits && (!best || literals > best.literals)) best = { template: path.template, literals };
  }
  return best?.template;
}

/** Where the response's schema is, for ajv: inside the component it refers to, or in place. */
function responsePointer(response: unknown, path: string, method: string, status: string): string {
  const ref = (response as Json).$ref;
  if (typeof ref === "string") return ref.replace(/^#/, "");
  return `/paths/${escapePointer(path)}/${method}/responses/${status}`;
}

/** A header field's text as the value its schema describes (integers are sent as digits). */
function headerValue(value: string, schema: Json): unknown {
  if ((schema.type === "integer" || schema.type === "number") && /^-?\d+(\.\d+)?$/.test(value)) {
    return Number(value);
  }
  return value;
}

function escapePointer(segment: string): string {
  return segment.replaceAll("~", "~0").replaceAll("/", "~1");
}

function pointerGet(root: unknown, pointer: string): unknown {
  let current = root;
  for (const part of pointer.split("/").slice(1)) {
    const key = part.replaceAll("~1", "/").replaceAll("~0", "~");
    current = (current as Json | undefined)?.[key];
  }
  return current;
}
