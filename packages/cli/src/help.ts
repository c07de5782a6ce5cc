/** The text `keyward --help` prints; docs/cli.md says the same at length. */
export const helpText = `keyward — manage Keyward API keys from a terminal

Usage:
  keyward keys list   --owner <id>
  keyward keys create --owner <id> --name <name> --scopes <a,b> --tier <tier>
                      [--expires-at <ISO 8601>] [--account-tier <tier>]
  keyward keys rotate <key id> [--grace <seconds>]
  keyward keys revoke <key id>
  keyward usage <key id>
  keyward migrate

Options:
  --config <file>  your application's scopes, tiers and key prefix (JSON or ES module);
                   default $KEYWARD_CONFIG, else ./keyward.config.json
  --json           print JSON for scripts
  -h, --help       print this help

Environment:
  DATABASE_URL     keys and usage on PostgreSQL
  REDIS_URL        keys, usage and rate limits on Redis (usage only, when DATABASE_URL is set too)
  KEYWARD_PEPPER   the pepper your application hashes keys with, if it has one

Exit codes: 0 done, 1 bad usage or input, 2 key not found or not in a state for this,
3 a store cannot be reached or used. Nothing is changed when the exit code is not 0.`;
