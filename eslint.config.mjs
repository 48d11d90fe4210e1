// @ts-check
/**
 * The house rules a tool can hold (docs/ARCHITECTURE.md, "What may import what"):
 * typescript-eslint's recommended rules for the code, and eslint-plugin-import-x for the
 * import boundaries and cycles. import-x resolves each import to its file (through
 * tsconfig's `@/` paths via eslint-import-resolver-typescript), so a boundary holds whether
 * a file writes `@/db/schema` or `../../db/schema`. No formatting rules: Prettier holds the format (`npm run lint` ends with `prettier --check`).
 */
import js from "@eslint/js";
import tseslint from "typescript-eslint";
import { importX } from "eslint-plugin-import-x";
import { createTypeScriptImportResolver } from "eslint-import-resolver-typescript";
import reactHooks from "eslint-plugin-react-hooks";
import { forbiddenFor, LAYERS } from "./scripts/layers.mjs";

/**
 * The one import rule (scripts/layers.mjs): for each folder of product code, a zone that
 * refuses every folder it may not import. `npm run layout` checks the same table with
 * type-only imports and cycles included.
 */
const boundaries = [
  ...Object.entries(LAYERS).map(([unit, allowed]) => ({
    target: `./${unit}`,
    // All globs (import-x takes all or none): a file as itself, a folder as everything under it.
    from: forbiddenFor(unit).map((f) => (f.endsWith(".ts") ? `./${f.slice(0, -3)}.[jt]s` : `./${f}/**`)),
    message: `${unit} imports only ${allowed.length ? allowed.join(", ") : "itself"} (docs/ARCHITECTURE.md).`,
  })),
  // Inside the server, the read door: import-x takes `from` as all globs or none, hence a zone of its own.
  ...["./lib/server/api", "./lib/server/realtime"].map((target) => ({
    target,
    from: "./db",
    // The driver's types (Db, Database) and the migrations' state for /health are all they take from db/.
    except: ["./client.ts", "./migrate.ts"],
    message: "the API and realtime read through lib/server/queries and write through the services, never db/ directly.",
  })),
];

/** Files that may not import drizzle-orm: they write no query. */
const noQueries = (files, message) => ({
  files,
  rules: {
    "no-restricted-imports": ["error", { patterns: [{ group: ["drizzle-orm", "drizzle-orm/*"], message }] }],
  },
});

export default tseslint.config(
  {
    ignores: [
      "node_modules/**",
      ".next/**",
      ".chips/**",
      "test-results/**",
      "playwright-report/**",
      "bench/results/**",
      "db/migrations/**",
      "next-env.d.ts",
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    plugins: { "import-x": importX },
    settings: {
      // The plugin's TypeScript settings (which files it parses to follow imports), with our resolver.
      ...importX.flatConfigs.typescript.settings,
      "import-x/resolver": undefined,
      "import-x/internal-regex": "^@/",
      "import-x/resolver-next": [createTypeScriptImportResolver({ project: "./tsconfig.json" })],
    },
    rules: {
      "import-x/no-cycle": ["error", { ignoreExternal: true }],
      "import-x/no-restricted-paths": ["error", { zones: boundaries }],
      // `_`-prefixed names are the house way to drop a field on purpose (`const { ts: _ts, ...rest }`).
      // Flags the defensive `let x = fallback; try { x = … }` this code uses on purpose.
      "no-useless-assignment": "off",
      "@typescript-eslint/no-unused-vars": [
        "error",
        {
          argsIgnorePattern: "^_",
          varsIgnorePattern: "^_",
          destructuredArrayIgnorePattern: "^_",
          caughtErrors: "none",
        },
      ],
    },
  },
  // Pages and components never write a query: the database is read through lib/server/queries.
  noQueries(["app/**", "components/**"], "pages and components read the database through lib/server/queries."),
  // The HTTP handlers and the sockets write no query either: reads are lib/server/queries', writes
  // the services' (lib/server/*.ts). NOTIFY goes through lib/server/notify.ts; LISTEN is the
  // driver's (db/client.ts), so the realtime transport needs no exception.
  noQueries(
    ["lib/server/api/**", "lib/server/realtime/**"],
    "the API and realtime read through lib/server/queries and write through the services.",
  ),
  {
    // The browser calls the server through lib/browser/api.ts only: it turns problem+json into
    // a typed ApiError, so no component parses a refusal its own way.
    files: ["app/**", "components/**", "lib/browser/**"],
    ignores: ["lib/browser/api.ts"],
    rules: {
      "no-restricted-globals": ["error", { name: "fetch", message: "call the API through lib/browser/api.ts." }],
      "no-restricted-properties": [
        "error",
        ...["window", "globalThis", "self"].map((object) => ({
          object,
          property: "fetch",
          message: "call the API through lib/browser/api.ts.",
        })),
      ],
    },
  },
  {
    // The two classic hook rules only: the React Compiler rules of the plugin's preset judge
    // code written for the compiler, which this app does not use.
    files: ["app/**/*.tsx", "components/**", "lib/browser/**"],
    plugins: { "react-hooks": reactHooks },
    rules: { "react-hooks/rules-of-hooks": "error", "react-hooks/exhaustive-deps": "error" },
  },
  {
    // Playwright sets up the fixtures a test names, used or not, and takes `{}` for none.
    files: ["e2e/**"],
    rules: {
      "no-empty-pattern": "off",
      "@typescript-eslint/no-unused-vars": ["error", { args: "none", varsIgnorePattern: "^_" }],
    },
  },
  {
    // Tests, e2e specs and benchmarks read loosely typed JSON answers on purpose.
    files: ["test/**", "e2e/**", "bench/**"],
    rules: { "@typescript-eslint/no-explicit-any": "off" },
  },
  {
    files: ["**/*.mjs", "**/*.js", "bin/**"],
    languageOptions: {
      globals: {
        process: "readonly",
        console: "readonly",
        URL: "readonly",
        Buffer: "readonly",
        setTimeout: "readonly",
        clearTimeout: "readonly",
        setInterval: "readonly",
        clearInterval: "readonly",
        fetch: "readonly",
        performance: "readonly",
      },
    },
  },
);
