import type { Contexts } from "./github-expressions";

/**
 * The contexts GitHub gives the reusable review workflows (review-sessions.yml, review-sessions-sweep.yml)
 * when acme/webapp calls them: a `pull_request` event of its pull request #7, or the scheduled sweep. The
 * tests that run the workflows' steps, against stand-ins or the real engine, differ only in what the caller
 * passes (`Caller`) and in what each case changes.
 */

/** The calling repository and its job's token, as the `github` context has them. */
export const REPOSITORY = { repository: "acme/webapp", repository_id: 111, token: "ghs_job_token_9f3b" };
/** The stack review-sessions.yml names for pull request #7 of REPOSITORY (the prefix `pr-`, the repository id). */
export const STACK = "pr-7-r111";

/** What the calling workflow passes to every run: its secrets, the `service-url` and `provider-artifact` inputs. */
export interface Caller {
  secrets: Record<string, string>;
  serviceUrl: string;
  providerArtifact: string;
}

export interface PullRequestCase {
  action?: string;
  /** The head branch is a fork's. */
  fork?: boolean;
  /** Another event than `pull_request` (`pull_request_target`, say). */
  event?: string;
  secrets?: Record<string, string>;
  inputs?: Record<string, string | boolean>;
}

/** The contexts of a `pull_request` event (`synchronize` unless told) for pull request #7, calling review-sessions.yml. */
export function pullRequestContexts(caller: Caller, c: PullRequestCase = {}): Contexts {
  return {
    github: {
      ...REPOSITORY,
      event_name: c.event ?? "pull_request",
      event: {
        action: c.action ?? "synchronize",
        repository: { private: false, full_name: REPOSITORY.repository },
        pull_request: {
          number: 7,
          html_url: "https://github.com/acme/webapp/pull/7",
          head: { sha: "0123456789abcdef0123456789abcdef01234567", repo: { full_name: c.fork ? "mallory/webapp" : REPOSITORY.repository } },
        },
      },
    },
    secrets: { ...caller.secrets, ...c.secrets },
    vars: {},
    inputs: {
      "preview-url": "https://pr-{number}.preview.example.com/",
      "service-url": caller.serviceUrl,
      browsers: "",
      "share-language": "",
      "wait-for-capacity-seconds": "",
      "stack-prefix": "pr-",
      program: "",
      comment: true,
      "provider-artifact": caller.providerArtifact,
      ...c.inputs,
    },
  };
}

export interface SweepCase {
  /** The destroy job's matrix entry. */
  pr?: string;
  /** The find job's `prs` output (JSON): with it, find and destroy are done and succeeded, as the audit job sees them. */
  prs?: string;
  /** Another event than `schedule` (`workflow_dispatch`, say). */
  event?: string;
  secrets?: Record<string, string>;
  inputs?: Record<string, string | boolean>;
}

/** The contexts of the scheduled sweep calling review-sessions-sweep.yml. */
export function sweepContexts(caller: Caller, c: SweepCase = {}): Contexts {
  return {
    github: { ...REPOSITORY, event_name: c.event ?? "schedule", event: {} },
    secrets: { ...caller.secrets, ...c.secrets },
    vars: {},
    inputs: {
      "service-url": caller.serviceUrl,
      "stack-prefix": "pr-",
      "ttl-days": "7",
      "orphan-minutes": "60",
      "dry-run": false,
      "provider-artifact": caller.providerArtifact,
      ...c.inputs,
    },
    matrix: c.pr ? { pr: c.pr } : {},
    needs: c.prs ? { find: { outputs: { prs: c.prs }, result: "success" }, destroy: { result: "success" } } : {},
  };
}
