import { type ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";

/**
 * Runs the shipped nginx site (deploy/nginx/ollama-web.conf) in tests: the file is parsed, its
 * servers moved to free loopback ports and its upstream pointed at the app under test, and nginx is
 * started as a child process of the test, as the current user, with everything it writes in a temp dir.
 * Used by tests/deploy/nginx.test.ts (vitest) and e2e/nginx.spec.ts (Playwright).
 */

export const NGINX_BIN = process.env.NGINX_PATH ?? "/usr/sbin/nginx";
export const SITE_CONFIG = path.resolve("deploy/nginx/ollama-web.conf");

export function nginxInstalled(): boolean {
  try {
    fs.accessSync(NGINX_BIN, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Skips a suite without nginx on a developer machine; in CI a missing nginx is a failure. */
/** nginx is a test requirement (README): its absence fails the tests with how to install it. */
export function requireNginx(): void {
  if (!nginxInstalled()) {
    throw new Error(`nginx is not installed at ${NGINX_BIN}: apt-get install -y nginx (or set NGINX_PATH).`);
  }
}

// ---- just enough of nginx's configuration syntax to rewrite the site file -------------------

export interface Directive {
  name: string;
  /** Arguments as written, quotes included, so rendering gives them back unchanged. */
  args: string[];
  block?: Directive[];
}

function tokenize(text: string): string[] {
  const tokens: string[] = [];
  const pattern = /\s+|#[^\n]*|"(?:\\.|[^"\\])*"|'(?:\\.|[^'\\])*'|[;{}]|[^\s;{}"'#]+/gy;
  for (let match = pattern.exec(text); match; match = pattern.exec(text)) {
    const token = match[0];
    if (!/^\s/.test(token) && !token.startsWith("#")) tokens.push(token);
  }
  if (pattern.lastIndex !== 0 && pattern.lastIndex < text.length) throw new Error("nginx config: cannot tokenize");
  return tokens;
}

export function parseNginxConfig(text: string): Directive[] {
  const tokens = tokenize(text);
  let position = 0;
  const parseBlock = (nested: boolean): Directive[] => {
    const directives: Directive[] = [];
    while (position < tokens.length) {
      const name = tokens[position++] as string;
      if (name === "}") {
        if (!nested) throw new Error("nginx config: unexpected }");
        return directives;
      }
      const args: string[] = [];
      for (;;) {
        const token = tokens[position++];
        if (token === undefined) throw new Error(`nginx config: ${name} is not terminated`);
        if (token === ";") {
          directives.push({ name, args });
          break;
        }
        if (token === "{") {
          directives.push({ name, args, block: parseBlock(true) });
          break;
        }
        args.push(token);
      }
    }
    if (nested) throw new Error("nginx config: missing }");
    return directives;
  };
  return parseBlock(false);
}

export function renderNginxConfig(directives: Directive[], indent = ""): string {
  return directives
    .map(({ name, args, block }) => {
      const head = [name, ...args].join(" ");
      if (!block) return `${indent}${head};`;
      return `${indent}${head} {\n${renderNginxConfig(block, `${indent}    `)}\n${indent}}`;
    })
    .join("\n");
}

export function loadSite(): Directive[] {
  return parseNginxConfig(fs.readFileSync(SITE_CONFIG, "utf8"));
}

const listensWithTls = (server: Directive) =>
  server.block?.some((inner) => inner.name === "listen" && inner.args.includes("ssl")) ?? false;

function serverBlock(site: Directive[], tls: boolean): Directive[] {
  const server = site.find((d) => d.name === "server" && listensWithTls(d) === tls);
  if (!server?.block) throw new Error(`${SITE_CONFIG}: no server block listening ${tls ? "with" : "without"} ssl`);
  return server.block;
}

/** The server block that terminates TLS and proxies to the app. */
export const appServer = (site: Directive[]) => serverBlock(site, true);

/** The plain HTTP server block that sends browsers to HTTPS. */
export const redirectServer = (site: Directive[]) => serverBlock(site, false);

export interface TestSiteOptions {
  /** host:port of each app instance behind nginx (one, or several sharing a PostgreSQL store). */
  upstreams: string[];
  /** Where the HTTPS server's directives are served, over plain HTTP. */
  appPort: number;
  /** Where the HTTP-to-HTTPS redirect server listens. */
  redirectPort: number;
}

/**
 * The site with its servers on 127.0.0.1 test ports and its upstream replaced; TLS is dropped (the
 * certificate directives are only valid with real certificates), everything else is kept as written.
 */
export function testSite(options: TestSiteOptions): string {
  const site = loadSite();
  const rewritten = site.map((directive): Directive => {
    if (directive.name === "upstream") {
      const others = directive.block?.filter((d) => d.name !== "server") ?? [];
      const servers = options.upstreams.map((upstream): Directive => ({ name: "server", args: [upstream] }));
      return { ...directive, block: [...servers, ...others] };
    }
    if (directive.name !== "server" || !directive.block) return directive;
    const port = listensWithTls(directive) ? options.appPort : options.redirectPort;
    const rest = directive.block.filter((d) => d.name !== "listen" && !d.name.startsWith("ssl_"));
    return { ...directive, block: [{ name: "listen", args: [`127.0.0.1:${port}`] }, ...rest] };
  });
  return renderNginxConfig(rewritten);
}

/** A main nginx.conf around `site` that keeps every file nginx writes inside `dir`. */
export function mainConfig(dir: string, site: string): string {
  const tempPaths = ["client_body", "proxy", "fastcgi", "uwsgi", "scgi"]
    .map((name) => `    ${name}_temp_path ${path.join(dir, name)};`)
    .join("\n");
  return `# Written by tests/deploy/support/nginx.ts
daemon off;
# One process: the test starts it, and ends it, by its PID.
master_process off;
error_log ${path.join(dir, "error.log")} info;
pid ${path.join(dir, "nginx.pid")};
${process.getuid?.() === 0 ? "# As root nginx would switch to nobody, who cannot write the temp dir.\nuser root;\n" : ""}
events {
    # Each proxied stream holds two (the client's and the app's): room for bench:load's 150 streams.
    worker_connections 1024;
}

http {
    access_log ${path.join(dir, "access.log")};
${tempPaths}
    default_type application/octet-stream;
    # Stricter than a stock nginx.conf on purpose: compress every type, and ignore the app's own
    # "X-Accel-Buffering: no", so only the site's directives can keep Server-Sent Events flowing.
    gzip on;
    gzip_types *;
    gzip_min_length 1;
    proxy_ignore_headers X-Accel-Buffering;

${site
  .split("\n")
  .map((line) => `    ${line}`)
  .join("\n")}
}
`;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() =>
        typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port")),
      );
    });
  });
}

function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: "127.0.0.1", port });
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

export interface RunningNginx {
  /** The app's server block, over HTTP. */
  url: string;
  /** The HTTP-to-HTTPS redirect server. */
  redirectUrl: string;
  pid: number;
  dir: string;
  stop(): Promise<void>;
}

/** `nginx -t` on a main config: the exit code and what nginx said. */
export function nginxTest(configFile: string, prefix: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(NGINX_BIN, ["-t", "-e", "stderr", "-p", prefix, "-c", configFile], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, output }));
  });
}

/** Starts nginx with the site in front of `upstreams` and waits until it accepts connections. */
export async function startNginx({ upstreams }: { upstreams: string[] }): Promise<RunningNginx> {
  if (!nginxInstalled()) throw new Error(`nginx is not installed at ${NGINX_BIN}: apt-get install nginx`);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ollama-web-nginx-"));
  const appPort = await freePort();
  const redirectPort = await freePort();
  const configFile = path.join(dir, "nginx.conf");
  fs.writeFileSync(configFile, mainConfig(dir, testSite({ upstreams, appPort, redirectPort })));

  const child: ChildProcess = spawn(NGINX_BIN, ["-e", "stderr", "-p", `${dir}/`, "-c", configFile], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const errorLog = () => {
    try {
      return fs.readFileSync(path.join(dir, "error.log"), "utf8");
    } catch {
      return "";
    }
  };

  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null && child.pid !== undefined) {
      process.kill(child.pid, "SIGTERM");
      const killed = await Promise.race([exited.then(() => true), new Promise((r) => setTimeout(r, 5000, false))]);
      if (!killed && child.exitCode === null) process.kill(child.pid, "SIGKILL");
      await exited;
    }
    fs.rmSync(dir, { recursive: true, force: true });
  };

  const deadline = Date.now() + 10_000;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      const message = `nginx exited (${child.exitCode ?? child.signalCode}) at start:\n${output}\n${errorLog()}`;
      await stop();
      throw new Error(message);
    }
    if ((await canConnect(appPort)) && (await canConnect(redirectPort))) break;
    if (Date.now() > deadline) {
      const message = `nginx did not listen on ${appPort} within 10 s:\n${output}\n${errorLog()}`;
      await stop();
      throw new Error(message);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  if (child.pid === undefined) throw new Error("nginx has no PID");
  return {
    url: `http://127.0.0.1:${appPort}`,
    redirectUrl: `http://127.0.0.1:${redirectPort}`,
    pid: child.pid,
    dir,
    stop,
  };
}
