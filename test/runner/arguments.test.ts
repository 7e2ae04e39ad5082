import { describe, expect, it } from "vitest";
import { runnerCommand } from "../../runner/advice";
import { backendArg } from "../../runner/backend-arg";
import { configFromArgs } from "../../runner/config-args";

describe("the runner's --config", () => {
  it("refuses credentials in the service's address, in any spelling of the key and from any source, without repeating them", () => {
    const env = { URL_VAR: "https://user:hunter2-pw@api.example.com/v8" };
    for (const values of [
      { config: ["remote-browser:baseUrl=https://user:hunter2-pw@host.example/v8"] },
      { config: ["remote-browser:config:baseUrl=https://only-hunter2-user@host.example/v8"] },
      { config: ["remote-browser:base_url=https://user:hunter2-pw@host.example/v8"] },
      { "secret-env": ["remote-browser:baseUrl=URL_VAR"] },
    ]) {
      let err: Error | undefined;
      try {
        configFromArgs(values, env);
      } catch (e) {
        err = e as Error;
      }
      expect(err?.name, JSON.stringify(values)).toBe("UsageError");
      expect(err!.message).toMatch(/carries a user name or password: the key goes in remote-browser:apiKey .*Nothing was run/);
      expect(err!.message).not.toContain("hunter2");
    }
  });

  it("refuses a key in the service's address's query, naming the parameter, never its value", () => {
    for (const [url, parameter] of [
      ["https://host.example/v8?api_key=hunter2-key", "api_key"],
      ["https://host.example/v8?region=eu&token=hunter2-key", "token"],
      ["https://host.example/v8?X-Api-Key=hunter2-key", "X-Api-Key"],
      ["https://host.example/v8?access%5Ftoken=hunter2-key", "access_token"],
      ["https://host.example/v8?key=hunter2-key#x", "key"],
    ]) {
      let err: Error | undefined;
      try {
        configFromArgs({ config: [`remote-browser:baseUrl=${url}`] });
      } catch (e) {
        err = e as Error;
      }
      expect(err?.name, url).toBe("UsageError");
      expect(err!.message).toContain(`remote-browser:baseUrl carries a credential in its query (the parameter "${parameter}")`);
      expect(err!.message).not.toContain("hunter2");
    }
  });

  it("refuses a misspelt setting of the provider, naming the one it reads, from any source", () => {
    const env = { KEY_VAR: "rb_live_hunter2" };
    const misspelt: Array<[Parameters<typeof configFromArgs>[0], string]> = [
      [{ "secret-env": ["remote_browser:apiKey=KEY_VAR"] }, "remote-browser:apiKey"],
      [{ "secret-env": ["remotebrowser:apiKey=KEY_VAR"] }, "remote-browser:apiKey"],
      [{ "secret-env": ["remote-browser:api.key=KEY_VAR"] }, "remote-browser:apiKey"],
      [{ "secret-env": ["remote-browser:apikey=KEY_VAR"] }, "remote-browser:apiKey"],
      [{ config: ["Remote-Browser:baseUrl=https://api.example.com/v8"] }, "remote-browser:baseUrl"],
      [{ config: ["remote-browser:base_url=https://api.example.com/v8"] }, "remote-browser:baseUrl"],
    ];
    for (const [values, meant] of misspelt) {
      expect(() => configFromArgs(values, env), JSON.stringify(values)).toThrow(`the provider reads no such setting, so the value would never reach it (it reads ${meant})`);
    }
    // On the command line, a misspelt credential is refused as a credential there.
    expect(() => configFromArgs({ config: ["remote_browser:apiKey=rb_x"] })).toThrow(/puts a credential on the command line/);
    expect(() => configFromArgs({ config: ["remote-browser:api.key=rb_x"] })).toThrow(/puts a credential on the command line/);
    // Spellings Pulumi reads as the setting, and other namespaces, are taken.
    expect(Object.keys(configFromArgs({ "secret-env": ["remote-browser:config:apiKey=KEY_VAR", "remote-browser:apiKey=KEY_VAR", "app:apiKey=KEY_VAR"] }, env))).toHaveLength(3);
  });

  it("takes an address without credentials, and other config as given", () => {
    expect(configFromArgs({ config: ["remote-browser:baseUrl=https://api.example.com/v8", "app:note=a@b"] })).toEqual({
      "remote-browser:baseUrl": { value: "https://api.example.com/v8", secret: false },
      "app:note": { value: "a@b", secret: false },
    });
  });

  it("still refuses a credential in --config and --secret key=value", () => {
    expect(() => configFromArgs({ config: ["remote-browser:apiKey=rb_x"] })).toThrow(/puts a credential on the command line/);
    expect(() => configFromArgs({ secret: ["remote-browser:apiKey=rb_x"] })).toThrow(/--secret key=value puts the secret on the command line/);
  });
});

describe("the runner's backend", () => {
  it("refuses a URL with a password on the command line, in user info or query form, pointing to --backend-env", () => {
    for (const backend of [
      "postgres://u:hunter2-pw@db.example/pulumi",
      "postgres://u@db.example/pulumi?password=hunter2-pw",
      "postgres://u@db.example/pulumi?sslmode=require&sslpassword=hunter2-pw",
      "mysql://u@db.example/p?pwd=hunter2-pw",
    ]) {
      let err: Error | undefined;
      try {
        backendArg({ backend });
      } catch (e) {
        err = e as Error;
      }
      expect(err?.name, backend).toBe("UsageError");
      expect(err!.message).toMatch(/--backend <url> carries a password on the command line.*--backend-env PULUMI_BACKEND_URL/);
      expect(err!.message).not.toContain("hunter2");
    }
  });

  it("takes one from the environment variable --backend-env names, shown by the variable, and a URL without a password as given", () => {
    const url = "postgres://u@db.example/pulumi?password=hunter2-pw";
    expect(backendArg({ "backend-env": "MY_BACKEND" }, { MY_BACKEND: url })).toEqual({ url, shown: "--backend-env MY_BACKEND" });
    expect(backendArg({ backend: "file:///tmp/b" })).toEqual({ url: "file:///tmp/b", shown: "--backend file:///tmp/b" });
    expect(backendArg({})).toEqual({});
    expect(() => backendArg({ "backend-env": "UNSET_ONE" }, {})).toThrow(/--backend-env UNSET_ONE: the environment variable UNSET_ONE is not set or empty/);
    expect(() => backendArg({ backend: "file:///tmp/b", "backend-env": "X" }, { X: "file:///x" })).toThrow(/give one/);
  });
});

describe("the runner's advice", () => {
  it("names the project also when the run derived it from the program's folder, and the backend only as shown", () => {
    const parts = { program: "/x/prog/index.js", stack: "dev", project: "prog", backend: "--backend-env PULUMI_BACKEND_URL" };
    expect(runnerCommand("cancel", parts)).toBe("pulumi-remote-browser-run cancel --stack dev --project prog --backend-env PULUMI_BACKEND_URL");
    expect(runnerCommand("refresh", parts, "--clear-pending-creates")).toBe("pulumi-remote-browser-run refresh --stack dev --project prog --backend-env PULUMI_BACKEND_URL --clear-pending-creates");
    expect(runnerCommand("up", { ...parts, workDir: "/my dir" })).toBe(
      "pulumi-remote-browser-run up --program /x/prog/index.js --stack dev --project prog --work-dir '/my dir' --backend-env PULUMI_BACKEND_URL",
    );
  });
});
