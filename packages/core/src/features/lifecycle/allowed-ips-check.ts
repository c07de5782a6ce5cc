import type { KeyCheck } from "../../auth/key-checks.js";
import { compiledAllowedIps } from "./allowed-ips.js";

/**
 * A key with an allowlist, used from outside it: 403 at `verify`'s key checks, before the rate
 * limiter, so requests from addresses the key may not be used from (a leaked key, most likely)
 * spend nothing of its owner's limits, quota or credits. No client address: refused too, never
 * waved through.
 */
export const allowedIpsCheck: KeyCheck = {
  name: "allowed-ips",
  check(key, { clientIp }, kit) {
    const allowedIps = key.fields?.allowedIps as readonly string[] | undefined;
    if (allowedIps == null) return undefined;
    if (clientIp === undefined || clientIp === "") {
      kit.warnOnce(
        "allowed-ips-without-client-ip",
        () =>
          "a key with an IP allowlist was refused because verify() was given no `clientIp`. Pass the client's address as your framework resolves it (the adapters do), e.g. { clientIp: req.ip }.",
      );
      return kit.refuse(
        "ip_not_allowed",
        "This API key may only be used from the addresses it allows, and the client's address is unknown",
      );
    }
    if (compiledAllowedIps(allowedIps).allows(clientIp)) return undefined;
    return kit.refuse("ip_not_allowed", "This API key may not be used from this client address");
  },
};
