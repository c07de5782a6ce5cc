/** The text `keyward --help` prints; docs/cli.md says the same at length. */
export const helpText = `keyward — manage Keyward API keys from a terminal, through your application

Usage:
  keyward keys list   (--owner <user id> | --org <organization id>)
  keyward keys create (--owner <user id> | --org <organization id> --created-by <user id>)
                      --name <name> --scopes <a,b> --tier <tier> [--environment <name>]
                      [--expires-at <ISO 8601>] [--account-tier <tier>]
  keyward keys rotate <key id> [--grace <seconds>]
  keyward keys revoke <key id>
  keyward usage <key id>
  keyward usage reconcile --period <YYYY-MM>   (the ledger against the billing sink; needs metering())
  keyward events <key id> [--limit <1-1000>] [--after <cursor>]
  keyward import better-auth --from <postgres-url> --tier <tier> [--table <name>]
                      [--organization-configs <configId,...>]
  keyward import unkey <file.json> --tier <tier>
  keyward import csv <file>    (columns key or hash, owner, name, scopes, tier, expires_at)
                      every import: [--dry-run] [--batch-size <1-5000>] [--skip-unverifiable]
                      [--scope-map 'their:scope=our:scope,dropped:scope=']; needs imports()
  keyward migrate [--schema <name>] [--table-prefix <prefix>]

Options:
  --app <module>   the module whose default export is your application's Keyward instance
                   (or a function or promise returning it; .ts loads as is); default $KEYWARD_APP.
                   Every command but migrate needs it: changes go through your application's
                   own API, with its events, webhooks, environments and organizations.
  --json           print JSON for scripts
  -h, --help       print this help

Environment:
  KEYWARD_APP      the module, when --app is not given
  DATABASE_URL     the PostgreSQL database migrate applies the schema to
                   (REDIS_URL alone: Redis needs no migrations)

Exit codes: 0 done, 1 bad usage or input, 2 key not found or not in a state for this,
3 a store cannot be reached or used, 4 usage reconcile found differences. Nothing is changed when the exit code is not 0.`;
