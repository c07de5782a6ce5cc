/**
 * Every TypeScript snippet of the docs (```ts, ```typescript and ```tsx blocks of docs/*.md, of
 * README.md and of packages/* /README.md) compiles under `strict`, as a reader would have it: each
 * block is a module of its own, compiled against the packages' source (their `@keyward/source`
 * export condition), with the third-party modules it imports resolved from a package of this
 * repository that depends on them: the block's file is placed (in memory) inside that package's
 * folder, so `express` is the express a reader installs next to @keyward/express.
 *
 * What the block takes from the reader's application or from the page's earlier blocks (`keyward`,
 * `app`, `pool`, `scopes`…) comes from a prelude, declared with its real type, only when the block
 * uses the name without defining or importing it. A block whose first line names its file
 * (`// app.ts`) can be imported by the page's other blocks (`import { keyward } from
 * "./keyward.js"`).
 *
 * A block marked ```` ```ts standalone ```` gets no prelude at all: it must compile as a reader
 * pastes it into an empty file, with only the packages installed.
 *
 * A block that is only part of a module on purpose (the properties of createKeyward's options) is
 * marked ```` ```ts fragment ```` and compiled inside the object it belongs to; a test keeps such
 * blocks few. Every program is compiled once, with every block, so the whole check takes seconds.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import ts from "typescript";
import { beforeAll, describe, expect, it } from "vitest";
import { type CodeBlock, codeBlocks, repositoryRoot } from "./code-blocks.js";

/** The pages whose TypeScript blocks are checked: every doc and every README. */
const pages = [
  ...readdirSync(path.join(repositoryRoot, "docs"))
    .filter((name) => name.endsWith(".md"))
    .sort()
    .map((name) => `docs/${name}`),
  "README.md",
  ...readdirSync(path.join(repositoryRoot, "packages"))
    .sort()
    .map((name) => `packages/${name}/README.md`)
    .filter((file) => existsSync(path.join(repositoryRoot, file))),
];

const languages = new Set(["ts", "typescript", "tsx"]);

/** The most blocks that may be marked `fragment`: an escape hatch, not a way around the check. */
const maxFragments = 15;

/**
 * Modules the docs import that no package of this repository installs, with the reason they are
 * shown anyway. A block importing one compiles with that module declared `any`; the rest of the
 * block is still type-checked.
 */
const notInstalled: Record<string, string> = {
  "@neondatabase/serverless":
    "docs/postgres.md and Workers: Neon's driver, one of the clients the store takes",
  "next-auth": "docs/sessions.md: a session from Auth.js",
  pino: "docs/getting-started-node.md, docs/configuration.md: a reader's logger",
  "@sentry/node": "docs/configuration.md: a reader's error tracker",
  cors: "docs/http-api.md: CORS in Express",
  "@fastify/cors": "docs/http-api.md: CORS in Fastify",
};

/** Where a block's third-party imports resolve from: the folders of the packages that install them. */
const hosts = [
  "packages/core",
  "packages/express",
  "packages/fastify",
  "packages/fetch",
  "packages/hono",
  "packages/postgres",
  "packages/redis",
  "packages/webhooks",
  "packages/metering",
  "packages/otel",
  "packages/testing",
  "packages/ui",
  "examples/shared",
  "examples/workers",
  "bench",
];

const allFeatures = `[
  ReturnType<typeof import("@keyward/core/organizations").organizations>,
  ReturnType<typeof import("@keyward/core/lifecycle").lifecycle>,
  ReturnType<typeof import("@keyward/core/events").events>,
  ReturnType<typeof import("@keyward/core/openapi").openapi>,
  ReturnType<typeof import("@keyward/core/secret-scanning").secretScanning>,
  ReturnType<typeof import("@keyward/webhooks").webhooks>,
]`;

/**
 * Names the docs use as known, with their real types: what the reader's application has, and
 * what the pages import in their first block and leave out of the later ones.
 */
const given: Record<string, string> = {
  // the packages
  createKeyward: 'import { createKeyward } from "@keyward/core";',
  memoryStore: 'import { memoryStore } from "@keyward/core";',
  combineStores: 'import { combineStores } from "@keyward/core";',
  memoryRateLimitStore: 'import { memoryRateLimitStore } from "@keyward/core";',
  createSecretHasher: 'import { createSecretHasher } from "@keyward/core/toolkit";',
  JwtClaims: 'import type { JwtClaims } from "@keyward/core";',
  events: 'import { events } from "@keyward/core/events";',
  lifecycle: 'import { lifecycle } from "@keyward/core/lifecycle";',
  openapi: 'import { openapi } from "@keyward/core/openapi";',
  organizations: 'import { organizations } from "@keyward/core/organizations";',
  secretScanning: 'import { secretScanning } from "@keyward/core/secret-scanning";',
  webhooks: 'import { webhooks } from "@keyward/webhooks";',
  otel: 'import { otel } from "@keyward/otel";',
  postgresStore: 'import { postgresStore } from "@keyward/postgres";',
  redisStore: 'import { redisStore } from "@keyward/redis";',
  keywardRouter: 'import { keywardRouter } from "@keyward/express";',
  requireApiKey: 'import { requireApiKey } from "@keyward/express";',
  keywardPlugin: 'import { keywardPlugin } from "@keyward/fastify";',
  keywardErrorHandler: 'import { keywardErrorHandler } from "@keyward/fastify";',
  withApiKey: 'import { withApiKey } from "@keyward/fetch";',
  describeHttpConformance: 'import { describeHttpConformance } from "@keyward/testing";',
  forwardTo: 'import { forwardTo } from "@keyward/testing";',
  KeywardKeys: 'import type { KeywardKeys } from "@keyward/ui";',
  // drivers
  pg: 'import pg from "pg";',
  Redis: 'import { Redis } from "ioredis";',
  // the reader's application
  keyward: `declare const keyward: import("@keyward/core").Keyward & import("@keyward/core").FeatureApis<${allFeatures}>;`,
  store: 'declare const store: import("@keyward/core").KeywardStore;',
  scopes: 'declare const scopes: import("@keyward/core").KeywardConfig["scopes"];',
  tiers: 'declare const tiers: import("@keyward/core").KeywardConfig["tiers"];',
  jwt: 'declare const jwt: import("@keyward/core").KeywardConfig["jwt"];',
  session: 'declare const session: import("@keyward/core").KeywardConfig["session"];',
  pool: 'declare const pool: import("pg").Pool;',
  redis: 'declare const redis: import("ioredis").Redis;',
  app: 'declare const app: import("express").Express;',
  req: 'declare const req: import("express").Request;',
  handler: 'declare const handler: import("express").RequestHandler;',
  request: "declare const request: Request;",
  authorization: "declare const authorization: string | null;",
  header: "declare const header: string | null;",
  ownerId: "declare const ownerId: string;",
  userId: "declare const userId: string;",
  keyId: "declare const keyId: string;",
  jwtSecret: "declare const jwtSecret: string;",
  origin: "declare const origin: string;",
  publicJwk: "declare const publicJwk: JsonWebKey;",
  pinoLogger: 'declare const pinoLogger: import("@keyward/core").KeywardLogger;',
  Sentry: 'import * as Sentry from "@sentry/node";',
  yourRouter: "declare function yourRouter(request: Request): Promise<Response>;",
  track: "declare function track(event: string, detail?: unknown): void;",
};

/**
 * What a page's blocks take from one another or from the reader's code, beyond the shared names;
 * `modules` are files of the reader's application the page imports (`./session`), and `aliases`
 * map an import to the block (by the file its first line names) it stands for.
 */
const pageSetup: Record<
  string,
  {
    given?: Record<string, string>;
    modules?: Record<string, string>;
    aliases?: Record<string, string>;
  }
> = {
  "docs/agents.md": {
    given: {
      token: "declare const token: string;",
      signingKeys:
        'declare const signingKeys: import("@keyward/core/agent-tokens").SigningKeysConfig;',
    },
  },
  "docs/budgets.md": {
    given: {
      client: 'declare const client: import("ioredis").Redis;',
      app: "declare const app: { post(path: string, handler: (request: Request) => Promise<Response>): void };",
      keyward:
        'declare const keyward: import("@keyward/core").Keyward & { budgets: import("@keyward/core/budgets").BudgetsApi };',
      callModel: "declare function callModel(input: unknown): Promise<Response>;",
      tapUsage:
        "declare function tapUsage(body: ReadableStream<Uint8Array> | null, onUsage: (usage: { completion_tokens: number }) => void): ReadableStream<Uint8Array>;",
      budgets: 'import { budgets } from "@keyward/core/budgets";',
      metering: 'import { metering } from "@keyward/metering";',
      ledger: 'declare const ledger: import("@keyward/metering").MeteringConfig["ledger"];',
      exporters:
        'declare const exporters: import("@keyward/metering").MeteringConfig["exporters"];',
      createApp:
        "declare function createApp(keyward: unknown, parts: { pending(work: Promise<unknown>): void }): (request: Request) => Promise<Response>;",
      ctx: "declare const ctx: { waitUntil(promise: Promise<unknown>): void };",
      request: "declare const request: Request;",
    },
  },
  "docs/cloudflare.md": {
    given: {
      cloudflareStore: 'import { cloudflareStore } from "@keyward/cloudflare";',
      env: 'declare const env: { KEYWARD: import("@keyward/cloudflare").ObjectNamespace };',
    },
    modules: {
      "./src/app": `export declare function createApp(keyward: import("@keyward/core").Keyward): (request: Request) => Promise<Response>;
export declare const scopes: import("@keyward/core").KeywardConfig["scopes"];
export declare const tiers: import("@keyward/core").KeywardConfig["tiers"];`,
    },
  },
  "docs/concepts.md": {
    given: {
      scopes: "declare const scopes: string[];",
      accountTier: "declare const accountTier: string;",
      name: "declare const name: string;",
      tier: "declare const tier: string;",
      expiresAt: "declare const expiresAt: string | undefined;",
    },
  },
  "docs/fastify.md": {
    given: {
      app: 'declare const app: import("fastify").FastifyInstance;',
      PaymentRequired: "declare class PaymentRequired extends Error {}",
    },
  },
  "docs/features.md": {
    given: {
      usageExport: `import { usageExport } from "${repositoryRoot}/examples/shared/src/usage-export/index.js";`,
    },
  },
  "docs/forged-key-floods.md": {
    given: {
      app: 'declare const app: import("hono").Hono<import("@keyward/hono").KeywardEnv>;',
      instance: 'declare const instance: import("@keyward/core").Keyward;',
      handler:
        'declare const handler: (request: Request, principal: import("@keyward/core").Principal) => Response;',
    },
  },
  "docs/getting-started-hono.md": {
    given: {
      app: 'declare const app: import("hono").Hono<import("@keyward/hono").KeywardEnv>;',
      instance: 'declare const instance: import("@keyward/core").Keyward;',
      keyward: 'import { keyward } from "@keyward/hono";',
      getConnInfo: 'import { getConnInfo } from "@hono/node-server/conninfo";',
    },
  },
  "docs/getting-started-nextjs.md": {
    given: { getKeyward: 'import { getKeyward } from "@/lib/keyward";' },
  },
  "docs/getting-started-workers.md": {
    aliases: { "./app.js": "src/index.ts" },
    given: {
      CloudflareStore: 'import type { CloudflareStore } from "@keyward/cloudflare";',
      cloudflareStore: 'import { cloudflareStore } from "@keyward/cloudflare";',
      createApp:
        'declare function createApp(keyward: import("@keyward/core").Keyward): (request: Request) => Promise<Response>;',
      Env: 'interface Env { JWT_SECRET: string; KEYWARD: import("@keyward/cloudflare").ObjectNamespace }',
    },
  },
  "packages/cloudflare/README.md": {
    given: {
      createApp:
        'declare function createApp(keyward: import("@keyward/core").Keyward): (request: Request) => Promise<Response>;',
    },
  },
  "docs/key-format.md": { given: { token: "declare const token: string;" } },
  "docs/limits.md": {
    given: {
      render: 'declare const render: import("express").RequestHandler;',
      status: 'declare const status: import("express").RequestHandler;',
    },
  },
  "docs/migrating.md": {
    given: {
      pg: 'declare const pg: ReturnType<typeof import("@keyward/postgres").postgresStore>;',
      redis: 'declare const redis: ReturnType<typeof import("@keyward/redis").redisStore>;',
      store: 'declare const store: ReturnType<typeof import("@keyward/postgres").postgresStore>;',
      memoryRateLimitStore: 'import { memoryRateLimitStore } from "@keyward/core/toolkit";',
    },
  },
  "docs/openapi.md": {
    given: { baseUrl: "declare const baseUrl: string;", jwt: "declare const jwt: string;" },
    aliases: {
      "./generated/demo-api.js": `${repositoryRoot}/examples/shared/src/generated/demo-api.ts`,
    },
  },
  "docs/rate-limiting.md": {
    given: {
      stepRateLimit: 'import { stepRateLimit } from "@keyward/core/toolkit";',
      previousState:
        'declare const previousState: Parameters<typeof import("@keyward/core/toolkit").stepRateLimit>[0];',
      now: "declare const now: number;",
      policy:
        'declare const policy: Parameters<typeof import("@keyward/core/toolkit").stepRateLimit>[2];',
    },
  },
  "docs/sessions.md": {
    given: {
      yourSessions:
        "declare const yourSessions: { fromRequest(request: Request): Promise<{ id: string; plan: string } | null> };",
      parseCookies:
        "declare function parseCookies(header: string | null): Record<string, string | undefined>;",
      validateSessionToken:
        "declare function validateSessionToken(token: string): Promise<{ session: { id: string } | null; user: { id: string; tier: string } }>;",
    },
  },
  "docs/storage.md": {
    given: {
      ioredis: 'declare const ioredis: import("ioredis").Redis;',
      selectKeys:
        'declare function selectKeys(ownerId: string): Promise<import("@keyward/core").StoredKey[]>;',
      selectUsage:
        'declare function selectUsage(keyId: string): Promise<Parameters<typeof import("@keyward/core/toolkit").sortKeyUsage>[0]>;',
      isAnswerFromTheDatabase: "declare function isAnswerFromTheDatabase(error: unknown): boolean;",
      myDb: `declare const myDb: { acquire(): Promise<{
        lookup(hash: string): Promise<import("@keyward/core").KeyRecord | null>;
        release(): void;
        destroy(): void;
      }> };`,
      MyClient: `interface MyClient {
        on(event: "error", listener: (error: unknown) => void): void;
        off(event: "error", listener: (error: unknown) => void): void;
      }`,
      myKeyStore:
        'declare function myKeyStore(client: MyClient, guard: import("@keyward/core/toolkit").CallGuard): import("@keyward/core").KeyStore;',
      client: 'declare const client: import("pg").Pool;',
      myStore:
        'declare function myStore(options: { client: import("pg").Pool }): import("@keyward/core").KeywardStore & { close(): Promise<void> };',
    },
  },
  "docs/testing-adapters.md": {
    given: {
      myHost: "declare function myHost(request: Request): Promise<Response>;",
      scopes: "declare const scopes: string[];",
      route: "declare const route: string;",
      clientIp: "declare const clientIp: string | undefined;",
      finish: 'declare function finish(result: import("@keyward/core").VerifyResult): void;',
      next: "declare function next(error: unknown): void;",
      startDemoServer:
        'declare function startDemoServer(keyward: import("@keyward/core").Keyward): Promise<string>;',
      demoApp:
        'declare function demoApp(keyward: import("@keyward/core").Keyward, host?: object): import("express").Express;',
      listen:
        'declare function listen(app: import("express").Express): Promise<{ origin: string; close(): Promise<void> }>;',
    },
  },
  "docs/ui.md": {
    modules: {
      "./session": "export declare function useSession(): { accessToken: string };",
      "./analytics": "export declare function track(event: string, id?: string): void;",
    },
  },
  "docs/usage.md": {
    given: { logger: "declare const logger: { error(object: object, message: string): void };" },
  },
  "docs/webhooks.md": {
    given: {
      alreadyHandled: "declare function alreadyHandled(eventId: string): Promise<boolean>;",
      handle:
        'declare function handle(event: import("@keyward/core").KeywardEvent): Promise<void>;',
    },
  },
  "packages/testing/README.md": {
    given: { myServer: "declare const myServer: { fetch(request: Request): Promise<Response> };" },
  },
};

interface Checked {
  page: string;
  block: CodeBlock;
  file: string;
  /** Lines before the block's first line in the file. */
  offset: number;
  fragment: boolean;
  /** The modules it imports, its prelude's included. */
  modules: string[];
}

/** Identifiers a block declares at its top level, and every identifier it uses. */
function names(code: string, tsx: boolean) {
  const source = ts.createSourceFile(
    tsx ? "block.tsx" : "block.ts",
    code,
    ts.ScriptTarget.Latest,
    true,
    tsx ? ts.ScriptKind.TSX : ts.ScriptKind.TS,
  );
  const declared = new Set<string>();
  const used = new Set<string>();
  const bindingNames = (name: ts.BindingName) => {
    if (ts.isIdentifier(name)) declared.add(name.text);
    else
      for (const element of name.elements)
        if (!ts.isOmittedExpression(element)) bindingNames(element.name);
  };
  const imports: string[] = [];
  for (const statement of source.statements) {
    if (ts.isImportDeclaration(statement)) {
      imports.push((statement.moduleSpecifier as ts.StringLiteral).text);
      const clause = statement.importClause;
      if (clause?.name) declared.add(clause.name.text);
      const bindings = clause?.namedBindings;
      if (bindings && ts.isNamespaceImport(bindings)) declared.add(bindings.name.text);
      if (bindings && ts.isNamedImports(bindings))
        for (const element of bindings.elements) declared.add(element.name.text);
    } else if (ts.isVariableStatement(statement)) {
      for (const declaration of statement.declarationList.declarations)
        bindingNames(declaration.name);
    } else if (
      (ts.isFunctionDeclaration(statement) ||
        ts.isClassDeclaration(statement) ||
        ts.isInterfaceDeclaration(statement) ||
        ts.isTypeAliasDeclaration(statement) ||
        ts.isEnumDeclaration(statement) ||
        ts.isModuleDeclaration(statement)) &&
      statement.name &&
      ts.isIdentifier(statement.name)
    ) {
      declared.add(statement.name.text);
    }
  }
  const visit = (node: ts.Node) => {
    if (ts.isIdentifier(node) && !isMemberName(node)) used.add(node.text);
    if (
      ts.isImportTypeNode(node) &&
      ts.isLiteralTypeNode(node.argument) &&
      ts.isStringLiteral(node.argument.literal)
    ) {
      imports.push(node.argument.literal.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return { declared, used, imports };
}

/** `x.name`, `{ name: … }`, `A.Name`: a member's name, not a use of a variable of that name. */
function isMemberName(node: ts.Identifier): boolean {
  const parent = node.parent;
  return (
    ((ts.isPropertyAccessExpression(parent) || ts.isQualifiedName(parent)) &&
      (ts.isPropertyAccessExpression(parent) ? parent.name : parent.right) === node) ||
    ((ts.isPropertyAssignment(parent) ||
      ts.isPropertySignature(parent) ||
      ts.isPropertyDeclaration(parent) ||
      ts.isMethodDeclaration(parent) ||
      ts.isMethodSignature(parent) ||
      ts.isJsxAttribute(parent)) &&
      parent.name === node) ||
    (ts.isBindingElement(parent) && parent.propertyName === node)
  );
}

/** The package a bare module specifier names: `@hono/node-server/conninfo` → `@hono/node-server`. */
function packageName(specifier: string): string {
  const parts = specifier.split("/");
  return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : (parts[0] ?? specifier);
}

const isBare = (specifier: string) =>
  !specifier.startsWith(".") &&
  !specifier.startsWith("/") &&
  !specifier.startsWith("@/") &&
  !specifier.startsWith("node:");

/** The first file name a block's first line gives it (`// app.ts`, `// lib/keyward.ts`). */
function namedFile(code: string): string | undefined {
  return /^\/\/\s*([\w@./[\]-]+\.tsx?)\b/.exec(code)?.[1];
}

/** How a fragment is completed into a module: the object it is the properties of. */
const fragmentContexts: Record<string, [string, string]> = {
  fragment: [`export const options: Partial<import("@keyward/core").KeywardConfig> = {`, "};"],
  "fragment=tiers": [
    `export const tiers: import("@keyward/core").KeywardConfig["tiers"] = {`,
    "};",
  ],
};

/** `@keyward/...` → the source file its `@keyward/source` export condition names. */
function sourcePaths(): Record<string, string[]> {
  const paths: Record<string, string[]> = {};
  for (const folder of readdirSync(path.join(repositoryRoot, "packages"))) {
    const manifest = path.join(repositoryRoot, "packages", folder, "package.json");
    if (!existsSync(manifest)) continue;
    const { name, exports } = JSON.parse(readFileSync(manifest, "utf8")) as {
      name: string;
      exports?: Record<string, string | Record<string, string>>;
    };
    for (const [subpath, target] of Object.entries(exports ?? {})) {
      const source = typeof target === "object" ? target["@keyward/source"] : undefined;
      if (source)
        paths[path.posix.join(name, subpath)] = [
          path.join(repositoryRoot, "packages", folder, source),
        ];
    }
  }
  return paths;
}

/**
 * Runtimes whose types are not installed here (Bun, Deno, Cloudflare Workers): the part of their
 * global API the docs use, as their own type packages declare it.
 */
const runtimeGlobals = `
declare namespace Bun {
  interface SocketAddress { address: string; port: number; family: "IPv4" | "IPv6" }
  interface Server {
    requestIP(request: Request): SocketAddress | null;
    stop(closeActiveConnections?: boolean): Promise<void>;
  }
  type Handler = (request: Request, server: Server) => Response | Promise<Response>;
  const env: Record<string, string | undefined>;
  function serve(options: {
    port?: number;
    routes?: Record<string, Response | Handler | Partial<Record<"GET" | "POST" | "PUT" | "PATCH" | "DELETE", Handler>>>;
    fetch?: Handler;
  }): Server;
}
declare namespace Deno {
  interface NetAddr { transport: "tcp" | "udp"; hostname: string; port: number }
  interface ServeHandlerInfo<Addr = NetAddr> { remoteAddr: Addr; completed: Promise<void> }
  type ServeHandler = (request: Request, info: ServeHandlerInfo<NetAddr>) => Response | Promise<Response>;
  interface HttpServer { finished: Promise<void>; shutdown(): Promise<void> }
  const env: { get(key: string): string | undefined };
  function serve(handler: ServeHandler): HttpServer;
  function serve(options: { port?: number; hostname?: string }, handler: ServeHandler): HttpServer;
  function addSignalListener(signal: "SIGINT" | "SIGTERM", handler: () => void): void;
  function exit(code?: number): never;
}
interface ExecutionContext { waitUntil(promise: Promise<unknown>): void; passThroughOnException(): void }
interface ExportedHandler<Env = unknown> {
  fetch?(request: Request, env: Env, ctx: ExecutionContext): Response | Promise<Response>;
}
declare class URLPattern {
  constructor(input: { pathname?: string; hostname?: string; protocol?: string });
  test(input: string | { pathname?: string }): boolean;
}
${Object.keys(notInstalled)
  .map((name) => `declare module "${name}";\ndeclare module "${name}/*";`)
  .join("\n")}
`;

interface Snippet {
  page: string;
  block: CodeBlock;
}

interface Problem {
  page: string;
  /** The markdown line of the error (of the block's opening fence when the error is outside it). */
  line: number;
  message: string;
}

/** Compiles every snippet in one program; the problems, each with its page and line. */
function checkSnippets(snippets: Snippet[]): { problems: Problem[]; checked: Checked[] } {
  const virtual = new Map<string, string>();
  const checked: Checked[] = [];
  const byPage = new Map<string, Map<string, string>>(); // page → named file → virtual path
  const globalsFile = path.join(repositoryRoot, "scripts/docs/__snippets__/runtime-globals.d.ts");
  virtual.set(globalsFile, runtimeGlobals);

  for (const { page, block } of snippets) {
    const slug = page.replace(/\.md$/, "").replaceAll("/", "-");
    const tsx = block.language === "tsx";
    const fragment = block.info.split(/\s+/).find((word) => word.startsWith("fragment"));
    const setup = pageSetup[page] ?? {};
    const { declared, used, imports } = names(block.code, tsx);
    const known = { ...given, ...setup.given };
    const standalone = block.info.split(/\s+/).includes("standalone");
    const prelude = Object.entries(standalone ? {} : known)
      .filter(([name]) => used.has(name) && !declared.has(name))
      .map(([, line]) => line);
    const preludeImports = names(prelude.join("\n"), false).imports;
    const bare = [...imports, ...preludeImports]
      .filter(isBare)
      .map(packageName)
      .filter((name) => !name.startsWith("@keyward/") && !(name in notInstalled));
    const host =
      hosts.find((folder) =>
        bare.every((name) => existsSync(path.join(repositoryRoot, folder, "node_modules", name))),
      ) ?? hosts[0]!;
    const named = namedFile(block.code);
    const fileName = named ?? `line-${block.line}.${tsx ? "tsx" : "ts"}`;
    let file = path.join(repositoryRoot, host, "__snippets__", slug, fileName);
    if (virtual.has(file))
      file = path.join(repositoryRoot, host, "__snippets__", slug, `line-${block.line}`, fileName);
    if (fragment && !fragmentContexts[fragment]) {
      throw new Error(
        `${page}:${block.line}: unknown \`${fragment}\`; a fragment is one of ${Object.keys(fragmentContexts).join(", ")}`,
      );
    }
    const [open, close] = fragment ? fragmentContexts[fragment]! : ["", ""];
    const head = [...prelude, open].filter(Boolean).join("\n");
    const offset = head ? head.split("\n").length : 0;
    virtual.set(file, `${head ? `${head}\n` : ""}${block.code}${close}\nexport {};\n`);
    const modules = [...imports, ...preludeImports];
    checked.push({ page, block, file, offset, fragment: Boolean(fragment), modules });
    if (named) {
      const files = byPage.get(page) ?? new Map<string, string>();
      files.set(named, file);
      byPage.set(page, files);
    }
    for (const [specifier, source] of Object.entries(setup.modules ?? {})) {
      const module = path.join(
        repositoryRoot,
        host,
        "__snippets__",
        slug,
        `${specifier.replace(/^\.\//, "")}.ts`,
      );
      virtual.set(module, source);
    }
  }

  const pageOf = new Map(checked.map((entry) => [entry.file, entry.page]));
  const base = ts.readConfigFile(path.join(repositoryRoot, "tsconfig.base.json"), ts.sys.readFile);
  const { options } = ts.parseJsonConfigFileContent(
    {
      compilerOptions: {
        ...base.config.compilerOptions,
        noEmit: true,
        declaration: false,
        jsx: "preserve",
        paths: sourcePaths(),
      },
    },
    ts.sys,
    repositoryRoot,
  );
  const host = ts.createCompilerHost(options, true);
  const { getSourceFile, fileExists, readFile } = host;
  host.fileExists = (file) => virtual.has(file) || fileExists.call(host, file);
  host.readFile = (file) => virtual.get(file) ?? readFile.call(host, file);
  host.getSourceFile = (file, language, ...rest) => {
    const text = virtual.get(file);
    return text === undefined
      ? getSourceFile.call(host, file, language, ...rest)
      : ts.createSourceFile(file, text, language, true);
  };
  // A block's relative import: another block of its page (by the file its first line names).
  host.resolveModuleNameLiterals = (literals, containingFile, redirected, compilerOptions) =>
    literals.map((literal) => {
      const specifier = literal.text;
      const page = pageOf.get(containingFile);
      if (page && (specifier.startsWith(".") || specifier.startsWith("@/"))) {
        const files = byPage.get(page);
        const alias = pageSetup[page]?.aliases?.[specifier];
        const wanted = (alias ?? specifier)
          .replace(/^(\.\.?\/)+|^@\//, "")
          .replace(/\.(js|ts|tsx)$/, "");
        const found =
          (alias && path.isAbsolute(alias) ? alias : undefined) ??
          [...(files?.entries() ?? [])].find(([name]) =>
            name.replace(/\.tsx?$/, "").endsWith(wanted),
          )?.[1] ??
          [...virtual.keys()].find(
            (file) =>
              path.dirname(file) === path.dirname(containingFile) && file.endsWith(`/${wanted}.ts`),
          );
        if (found) {
          return {
            resolvedModule: {
              resolvedFileName: found,
              extension: found.endsWith(".tsx") ? ts.Extension.Tsx : ts.Extension.Ts,
              isExternalLibraryImport: false,
            },
          };
        }
      }
      // A third-party module: from the package that installs it, the block's own first.
      if (pageOf.has(containingFile) && isBare(specifier) && !specifier.startsWith("@keyward/")) {
        const name = packageName(specifier);
        const own = path.relative(repositoryRoot, containingFile).split("/__snippets__/")[0];
        const from = [own, ...hosts].find((folder) =>
          existsSync(path.join(repositoryRoot, folder!, "node_modules", name)),
        );
        if (from) {
          const stand = path.join(repositoryRoot, from, "__snippets__", "resolve.ts");
          return ts.resolveModuleName(
            specifier,
            stand,
            compilerOptions,
            host,
            undefined,
            redirected,
          );
        }
      }
      return ts.resolveModuleName(
        specifier,
        containingFile,
        compilerOptions,
        host,
        undefined,
        redirected,
      );
    });

  const files = [globalsFile, ...checked.map((entry) => entry.file)];
  const program = ts.createProgram(files, options, host);
  const byFile = new Map(checked.map((entry) => [entry.file, entry]));
  const problems = ts
    .getPreEmitDiagnostics(program)
    .filter((diagnostic) => !diagnostic.file || virtual.has(diagnostic.file.fileName))
    .map((diagnostic): Problem => {
      const message = `TS${diagnostic.code}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n")}`;
      const entry = diagnostic.file && byFile.get(diagnostic.file.fileName);
      if (!entry) return { page: diagnostic.file?.fileName ?? "(program)", line: 0, message };
      const { line } = diagnostic.file!.getLineAndCharacterOfPosition(diagnostic.start ?? 0);
      const inBlock = line - entry.offset;
      const lines = entry.block.code.split("\n").length;
      return inBlock >= 0 && inBlock < lines
        ? { page: entry.page, line: entry.block.line + 1 + inBlock, message }
        : {
            page: entry.page,
            line: entry.block.line,
            message: `(in the block's prelude) ${message}`,
          };
    });
  return { problems, checked };
}

const format = (problem: Problem) => `${problem.page}:${problem.line}: ${problem.message}`;

describe("the TypeScript snippets of the docs and READMEs", () => {
  const selfCheck = "scripts/docs/snippets.test.ts (self-check)";
  let result: ReturnType<typeof checkSnippets>;
  beforeAll(() => {
    const snippets = pages.flatMap((page) =>
      codeBlocks(page)
        .filter((block) => languages.has(block.language))
        .map((block) => ({ page, block })),
    );
    // Broken on purpose: the check must report them.
    const broken = [
      'import { createKeyward, memoryStore } from "@keyward/core";\ncreateKeyward({ store: memoryStore(), scopes: {}, tiers: {}, basePath: "/old" });\n',
      "const answer: number = notDefinedAnywhere;\n",
    ];
    for (const [index, code] of broken.entries()) {
      snippets.push({
        page: selfCheck,
        block: { language: "ts", info: "", code, line: index * 10 + 1 },
      });
    }
    // A fragment is compiled too, inside the object it belongs to.
    const fragment = 'free: { rateLimit: { limit: "sixty", window: "1m" } },\n';
    snippets.push({
      page: selfCheck,
      block: { language: "ts", info: "fragment=tiers", code: fragment, line: 21 },
    });
    // A standalone block gets no prelude: the shared `keyward` is not declared for it.
    snippets.push({
      page: selfCheck,
      block: { language: "ts", info: "standalone", code: "await keyward.close();\n", line: 31 },
    });
    result = checkSnippets(snippets);
    // No time limit: the compile is synchronous and finite (no I/O to hang on), so a limit could
    // only measure how busy the machine is. It took 60 s and more on a loaded two-core machine.
  }, 0);

  it("reports a broken snippet, with its page and line", () => {
    const reported = result.problems.filter((problem) => problem.page === selfCheck);
    expect(reported.map(format)).toEqual([
      expect.stringMatching(/self-check\):3: TS2353: .*'basePath' does not exist/),
      expect.stringMatching(/self-check\):12: TS2304: Cannot find name 'notDefinedAnywhere'/),
      expect.stringMatching(
        /self-check\):22: TS2322: Type 'string' is not assignable to type 'number'/,
      ),
      expect.stringMatching(/self-check\):32: TS2304: Cannot find name 'keyward'/),
    ]);
  });

  it("compile", () => {
    const problems = result.problems.filter((problem) => problem.page !== selfCheck).map(format);
    expect(problems, problems.join("\n")).toEqual([]);
  });

  it("checks every page's blocks, and keeps fragments few", () => {
    const checked = result.checked.filter((entry) => entry.page !== selfCheck);
    for (const page of pages) {
      const count = codeBlocks(page).filter((block) => languages.has(block.language)).length;
      expect(checked.filter((entry) => entry.page === page).length, page).toBe(count);
    }
    expect(checked.length).toBeGreaterThan(100);
    // The list of modules declared `any` holds only what is truly missing, and what the docs import.
    const imported = new Set(
      checked.flatMap((entry) => entry.modules.filter(isBare).map(packageName)),
    );
    for (const name of Object.keys(notInstalled)) {
      expect(
        hosts.filter((folder) =>
          existsSync(path.join(repositoryRoot, folder, "node_modules", name)),
        ),
        name,
      ).toEqual([]);
      expect(imported, name).toContain(name);
    }
    expect(checked.filter((entry) => entry.fragment).length).toBeLessThanOrEqual(maxFragments);
  });
});
