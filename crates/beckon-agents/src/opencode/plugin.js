// beckon-opencode-plugin 2
// Beckon's plugin for OpenCode, written by `beckon setup opencode` and taken out by
// `beckon setup opencode --remove`; edits here are replaced the next time setup runs.
//
// When OpenCode asks for a permission or asks the person a question, this runs
// `beckon hook opencode` with the event on stdin and, once the person has answered in Beckon,
// replies through OpenCode's own API with what the hook printed. OpenCode's own prompt stays
// open meanwhile: when it is answered there first, the hook is stopped (SIGTERM) and withdraws
// its question from Beckon. Nothing here throws into OpenCode or waits in its event loop, and
// when beckon is missing or not running, nothing changes for the person.

import { spawn } from "node:child_process";

const PROGRAM = "beckon";
/** Its arguments: Beckon's data folder first, when it is not the default one. */
const ARGS = ["hook", "opencode"];

/** Where the answer to each kind of prompt goes. */
const REPLY_ROUTES = {
  "permission.asked": "/permission/{requestID}/reply",
  "question.asked": "/question/{requestID}/reply",
};

/** The events that say a prompt was settled in OpenCode itself. */
const SETTLED = new Set(["permission.replied", "question.replied", "question.rejected"]);

export const BeckonPlugin = async ({ client, directory, serverUrl }) => {
  /** The running hook of each prompt still open, by OpenCode's request id. */
  const waiting = new Map();

  const note = (message) => {
    try {
      const logged = client?.app?.log?.({ body: { service: "beckon", level: "info", message } });
      logged?.catch?.(() => {});
    } catch {}
  };

  const reply = async (route, requestID, body) => {
    const http = client?._client;
    if (http && typeof http.post === "function") {
      await http.post({
        url: route,
        path: { requestID },
        body,
        headers: { "Content-Type": "application/json" },
      });
      return;
    }
    const url = new URL(route.replace("{requestID}", encodeURIComponent(requestID)), serverUrl);
    await fetch(url, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
  };

  const ask = (event) => {
    const requestID = event.properties?.id;
    if (typeof requestID !== "string" || waiting.has(requestID)) return;
    const child = spawn(PROGRAM, ARGS, { stdio: ["pipe", "pipe", "pipe"] });
    waiting.set(requestID, child);
    let out = "";
    let err = "";
    child.stdout.setEncoding("utf8");
    child.stderr.setEncoding("utf8");
    child.stdout.on("data", (chunk) => { out += chunk; });
    child.stderr.on("data", (chunk) => { err += chunk; });
    child.stdin.on("error", () => {});
    child.on("error", (error) => {
      // beckon is not where setup found it: OpenCode's own prompt decides.
      if (waiting.get(requestID) === child) waiting.delete(requestID);
      note(`cannot run ${PROGRAM}: ${error?.message ?? error}`);
    });
    child.on("close", () => {
      // Stopped because the prompt was settled in OpenCode: nothing to reply.
      if (waiting.get(requestID) !== child) return;
      waiting.delete(requestID);
      if (err.trim()) note(err.trim());
      const text = out.trim();
      if (!text) return;
      let body;
      try {
        body = JSON.parse(text);
      } catch {
        return;
      }
      reply(REPLY_ROUTES[event.type], requestID, body).catch((error) => note(`cannot reply: ${error?.message ?? error}`));
    });
    child.stdin.end(JSON.stringify({ ...event, directory }));
  };

  const settle = (event) => {
    const requestID = event.properties?.requestID;
    const child = waiting.get(requestID);
    if (!child) return;
    waiting.delete(requestID);
    child.kill("SIGTERM");
  };

  // OpenCode going away ends the hooks too, so their questions leave Beckon.
  try {
    process.once("exit", () => {
      for (const child of waiting.values()) {
        try {
          child.kill("SIGTERM");
        } catch {}
      }
    });
  } catch {}

  return {
    event: async ({ event }) => {
      try {
        if (Object.hasOwn(REPLY_ROUTES, event?.type ?? "")) ask(event);
        else if (SETTLED.has(event?.type)) settle(event);
      } catch (error) {
        note(`beckon plugin: ${error?.message ?? error}`);
      }
    },
  };
};
