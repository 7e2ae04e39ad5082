// `npm run lint`: typescript-eslint with type information, over every TypeScript file of the repository (the
// package, its tests, the vitest configs, the benchmarks and the scripts: tsconfig.test.json's files). Every
// call of this provider is asynchronous, so the rules that matter most are the promise rules: a promise nobody
// awaits or catches, a promise handed where a callback's result is ignored, an `await` of a value that is no
// promise. Formatting is Prettier's (`npm run format:check`), so no rule here is about layout.
import eslint from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
  {
    ignores: [
      "node_modules/",
      "dist/",
      ".work/",
      "docs/api/",
      // A user's program under Pulumi's Node.js host, compiled there against the generated SDK it installs.
      "test/hosts/programs/",
      "**/*.js",
      "**/*.cjs",
      "**/*.mjs",
    ],
  },
  {
    files: ["**/*.ts", "**/*.mts"],
    extends: [eslint.configs.recommended, ...tseslint.configs.recommended],
    languageOptions: {
      parserOptions: {
        project: ["./tsconfig.test.json"],
        tsconfigRootDir: import.meta.dirname,
      },
    },
    linterOptions: {
      // A disable comment that no longer silences anything is stale: it is reported, and `--fix` removes it.
      reportUnusedDisableDirectives: "error",
    },
    rules: {
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/no-misused-promises": "error",
      "@typescript-eslint/await-thenable": "error",
      "@typescript-eslint/no-explicit-any": "error",
      // `require(...) as typeof import(...)`, the deferred loads' pattern, stays allowed.
      "@typescript-eslint/consistent-type-imports": ["error", { fixStyle: "inline-type-imports", disallowTypeAnnotations: false }],
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrors: "none" }],
      "@typescript-eslint/no-require-imports": "error",
    },
  },
);
