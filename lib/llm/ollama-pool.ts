import { AppError } from "@/lib/errors";
import { sameModel } from "@/lib/llm/model-replacement";
import { backoffDelay } from "@/lib/util/backoff";
import { type LoadedModel, type ModelDetails, type ModelInfo, OllamaApi, Shared, VERSION_FRESH_MS } from "./ollama-api";
import type { ChatServer } from "./ollama-chat";

/**
 * Several Ollama servers as one (docs/architecture.md, "Model access"): each server's health with
 * backoff, its models and what it has loaded, requests in flight; the model list as their union;
 * and the order in which a chat tries the servers that have its model. One server is a pool of one,
 * which behaves exactly as that server alone. Over 300 lines on purpose: health, the model union and
 * the try order all read one per-server state, which a split would have to expose.
 */

/** A down server is probed (`/api/version`) after this long, doubling on each failure up to the maximum. */
export const BACKOFF_FIRST_MS = 1000;
export const BACKOFF_MAX_MS = 60_000;

export type ServerState = "unknown" | "up" | "down";

/** What the admin view shows of one server. */
export interface OllamaServerStatus {
  url: string;
  state: ServerState;
  version: string | null;
  /** Why it is down. */
  error: string | null;
  /** When a down server is probed next (ms since epoch). */
  retryAt: number | null;
  /** Installed models (null when unknown: the server is down). */
  models: number | null;
  loaded: string[];
  inFlight: number;
}

/** An installed model and the servers that have it. */
export type PooledModel = ModelInfo & { servers: string[] };
export type PooledLoadedModel = LoadedModel & { server: string };

/** A failure that says the server itself is away (not what it thinks of a request). */
function meansDown(error: unknown): boolean {
  return (
    error instanceof AppError &&
    (error.code === "upstream:ollama_unreachable" ||
      error.code === "upstream:ollama_timeout" ||
      error.code === "upstream:ollama_no_answer")
  );
}

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

export class OllamaServer implements ChatServer {
  readonly api: OllamaApi;
  state: ServerState = "unknown";
  inFlight = 0;
  version: string | null = null;
  error: string | null = null;
  retryAt = 0;
  private failures = 0;
  /** The names `/api/tags` gave last; kept while the server is down (null: never seen). */
  private known: string[] | null = null;
  private readonly tags: Shared<string[]>;
  private readonly ps: Shared<LoadedModel[]>;
  private probe: Promise<unknown> | undefined;

  constructor(
    readonly url: string,
    private readonly now: () => number,
    fetchImpl?: typeof fetch,
  ) {
    this.api = new OllamaApi(url, fetchImpl);
    this.tags = new Shared(VERSION_FRESH_MS, () => this.api.installedNames());
    this.ps = new Shared(VERSION_FRESH_MS, () => this.api.loadedModels());
  }

  /** Runs a request on this server, noting from its outcome whether the server is up or down. */
  async watch<T>(request: Promise<T>): Promise<T> {
    try {
      const value = await request;
      this.answered();
      return value;
    } catch (error) {
      // Ollama's own refusal (404, 400) is an answer; an abort says nothing about the server.
      if (meansDown(error)) this.failed(error);
      else if (error instanceof AppError) this.answered();
      throw error;
    }
  }

  answered(): void {
    // What it said while away (its failures) stands for no one once it is back.
    if (this.state === "down") {
      this.forget();
      this.api.forgetVersion();
    }
    this.state = "up";
    this.failures = 0;
    this.error = null;
  }

  failed(error: unknown): void {
    if (!meansDown(error)) return;
    this.failures += 1;
    this.state = "down";
    this.error = messageOf(error);
    this.retryAt = this.now() + backoffDelay(this.failures - 1, { firstMs: BACKOFF_FIRST_MS, maxMs: BACKOFF_MAX_MS });
  }

  begin(): () => void {
    this.inFlight += 1;
    let done = false;
    return () => {
      if (done) return;
      done = true;
      this.inFlight -= 1;
    };
  }

  /** A down server whose backoff has passed is probed once; it is used again when the probe answers. */
  probeIfDue(): void {
    if (this.state !== "down" || this.now() < this.retryAt || this.probe) return;
    this.probe = this.watch(this.api.fetchVersion())
      .then((version) => {
        this.version = version;
      })
      .catch(() => {})
      .finally(() => {
        this.probe = undefined;
      });
  }

  /** Resolves once a probe under way has its answer. */
  async probed(): Promise<void> {
    await this.probe;
  }

  /** Installed model names, from an answer at most VERSION_FRESH_MS old. */
  async modelNames(): Promise<string[]> {
    this.known = await this.watch(this.tags.get());
    return this.known;
  }

  /** Installed model names, asked now. */
  async installedNames(): Promise<string[]> {
    this.known = await this.api.installedNames();
    return this.known;
  }

  lastSeen(): string[] {
    return this.known ?? [];
  }

  async loadedNames(): Promise<string[]> {
    return (await this.watch(this.ps.get())).map((model) => model.name);
  }

  /** Whether it had the model when last seen, or might have (never seen). */
  mightHave(model: string): boolean {
    return this.known === null || this.known.some((name) => sameModel(name, model));
  }

  forget(): void {
    this.api.forgetModels();
    this.tags.clear();
    this.ps.clear();
  }
}

export class OllamaPool {
  readonly servers: OllamaServer[];

  constructor(urls: string[], options: { now?: () => number; fetchImpl?: typeof fetch } = {}) {
    const now = options.now ?? Date.now;
    this.servers = urls.map((url) => new OllamaServer(url, now, options.fetchImpl));
  }

  get urls(): string[] {
    return this.servers.map((server) => server.url);
  }

  /** A server by its URL as configured; another is `not_found:ollama_server`. */
  server(url: string): OllamaServer {
    const found = this.servers.find((server) => server.url === url);
    if (!found) {
      throw new AppError("not_found:ollama_server", `No Ollama server '${url}' is configured.`, { details: { url } });
    }
    return found;
  }

  /**
   * The servers to ask now: those not known to be down (a down one past its backoff is probed on the
   * side), or all of them when every one is down, so the answer says why.
   */
  private askable(): OllamaServer[] {
    if (this.servers.length === 1) return this.servers;
    for (const server of this.servers) server.probeIfDue();
    const live = this.servers.filter((server) => server.state !== "down");
    return live.length > 0 ? live : this.byRetry(this.servers);
  }

  private byRetry(servers: OllamaServer[]): OllamaServer[] {
    return [...servers].sort((a, b) => a.retryAt - b.retryAt);
  }

  /** Runs `task` on each server; the successes, or the first failure when none succeeded. */
  private async onEach<T>(servers: OllamaServer[], task: (server: OllamaServer) => Promise<T>): Promise<T[]> {
    const outcomes = await Promise.allSettled(servers.map((server) => server.watch(task(server))));
    const values = outcomes.flatMap((outcome) => (outcome.status === "fulfilled" ? [outcome.value] : []));
    const failure = outcomes.find((outcome) => outcome.status === "rejected");
    if (values.length === 0 && failure) throw failure.reason;
    return values;
  }

  /**
   * The servers a chat on `model` tries, best first: those that have it, where it is loaded first,
   * then the fewest requests in flight; after them the down ones that had it (tried only when
   * every other failed before answering). When none has it, one server that answers, whose
   * "not installed" the caller then reports.
   */
  async route(model: string): Promise<OllamaServer[]> {
    if (this.servers.length === 1) return this.servers;
    const askable = this.askable();
    const facts = await Promise.all(
      askable.map(async (server, order) => {
        const names = await server.modelNames().catch(() => null);
        const has = names?.some((name) => sameModel(name, model)) ?? false;
        const loaded = has && (await server.loadedNames().catch(() => [])).some((name) => sameModel(name, model));
        return { server, order, has, loaded, answered: names !== null };
      }),
    );
    const having = facts
      .filter((fact) => fact.has)
      .sort((a, b) => Number(b.loaded) - Number(a.loaded) || a.server.inFlight - b.server.inFlight || a.order - b.order)
      .map((fact) => fact.server);
    const lastResort = this.byRetry(
      this.servers.filter((server) => server.state === "down" && !having.includes(server) && server.mightHave(model)),
    );
    if (having.length + lastResort.length > 0) return [...having, ...lastResort];
    const answering = facts.find((fact) => fact.answered)?.server;
    return answering ? [answering] : this.byRetry(this.servers);
  }

  /** Tries `task` on the servers in turn while they are away; another failure is the answer. */
  private async onFirst<T>(servers: OllamaServer[], task: (server: OllamaServer) => Promise<T>): Promise<T> {
    let lastError: unknown;
    for (const server of servers) {
      try {
        return await server.watch(task(server));
      } catch (error) {
        if (!meansDown(error)) throw error;
        lastError = error;
      }
    }
    throw lastError;
  }

  /** Abilities and context length of a model, from a server that has it. */
  async describe(model: string): Promise<ModelInfo> {
    return this.onFirst(await this.route(model), (server) => server.api.describe(model));
  }

  async details(model: string): Promise<ModelDetails> {
    return this.onFirst(await this.route(model), (server) => server.api.details(model));
  }

  /** Whether any server answers, and the version of the first that does. */
  async version(): Promise<string> {
    const [version] = await this.onEach(this.askable(), async (server) => {
      server.version = await server.api.version();
      return server.version;
    });
    return version ?? "unknown";
  }

  /**
   * The installed names across the servers, asked now (a run start must see a model just deleted);
   * a down server's as last seen, so a model only it has fails as unreachable, not as deleted.
   */
  async installedNames(): Promise<string[]> {
    const askable = this.askable();
    const lists = await this.onEach(askable, (server) => server.installedNames());
    const away = this.servers.filter((server) => !askable.includes(server)).flatMap((server) => server.lastSeen());
    return [...new Set([...lists.flat(), ...away])];
  }

  /** The union of the installed models, each with the servers that have it (in configured order). */
  async listModels(): Promise<PooledModel[]> {
    const askable = this.askable();
    const lists = await this.onEach(askable, async (server) =>
      (await server.api.listModels()).map((model) => ({ ...model, servers: [server.url] })),
    );
    const union = new Map<string, PooledModel>();
    for (const model of lists.flat()) {
      const seen = union.get(model.name);
      if (seen) seen.servers.push(...model.servers);
      else union.set(model.name, model);
    }
    return [...union.values()];
  }

  async loadedModels(): Promise<PooledLoadedModel[]> {
    const lists = await this.onEach(this.askable(), async (server) =>
      (await server.api.loadedModels()).map((model) => ({ ...model, server: server.url })),
    );
    return lists.flat();
  }

  /** The servers a pull, delete or unload acts on: the one named, else every one. */
  targets(url?: string): OllamaServer[] {
    return url === undefined ? this.servers : [this.server(url)];
  }

  /**
   * Deletes a model from the named server, else from every server that has it; `not_found:model`
   * only when none had it.
   */
  async deleteModel(model: string, url?: string): Promise<void> {
    await this.onEachHaving(this.targets(url), (server) => server.api.deleteModel(model));
    this.forgetModels();
  }

  /** Unloads a model on the named server, else on every one that has it. */
  async unload(model: string, url?: string): Promise<void> {
    await this.onEachHaving(this.targets(url), (server) => server.api.unload(model));
  }

  /** `task` on every server; a server without the model is skipped, any other failure is the answer. */
  private async onEachHaving(servers: OllamaServer[], task: (server: OllamaServer) => Promise<void>): Promise<void> {
    const outcomes = await Promise.allSettled(servers.map((server) => server.watch(task(server))));
    const failures = outcomes.flatMap((outcome) => (outcome.status === "rejected" ? [outcome.reason] : []));
    const other = failures.find((error) => !(error instanceof AppError && error.code === "not_found:model"));
    if (other !== undefined) throw other;
    if (failures.length === outcomes.length && failures[0] !== undefined) throw failures[0];
  }

  forgetModels(): void {
    for (const server of this.servers) server.forget();
  }

  /** Each server's state for the admin view; asking is what probes a server whose backoff has passed. */
  async status(): Promise<OllamaServerStatus[]> {
    this.askable();
    await Promise.all(this.servers.map((server) => server.probed()));
    const askable = new Set(this.askable());
    return Promise.all(
      this.servers.map(async (server): Promise<OllamaServerStatus> => {
        let models: number | null = null;
        let loaded: string[] = [];
        if (askable.has(server)) {
          try {
            server.version = await server.watch(server.api.version());
            [models, loaded] = await Promise.all([
              server.modelNames().then((names) => names.length),
              server.loadedNames(),
            ]);
          } catch {
            // its state and error say what happened
          }
        }
        const down = server.state === "down";
        return {
          url: server.url,
          state: server.state,
          version: down ? null : server.version,
          error: down ? server.error : null,
          retryAt: down ? server.retryAt : null,
          models,
          loaded,
          inFlight: server.inFlight,
        };
      }),
    );
  }
}
