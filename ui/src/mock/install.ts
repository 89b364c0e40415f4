import { mockIPC, mockWindows } from "@tauri-apps/api/mocks";
import { emit } from "@tauri-apps/api/event";
import type { NavTarget } from "../bindings/NavTarget";
import { MockBackend } from "./backend";

declare global {
  interface Window {
    /** The mock backend, for browser tests to drive and inspect. */
    __beckonMock?: { backend: MockBackend; navigate: (target: NavTarget) => Promise<void> };
  }
}

/**
 * Stands the mock backend in for the Rust side before the app mounts. `?unavailable` in the
 * address makes `bootstrap` fail as it does when the runtime cannot start; `?start=question:<id>`
 * (or `session:<id>`, `problem:<text>`) plays a deep link that launched the app; `?waiting=<n>`
 * adds n more pending questions, one session each, for a long inbox; `?triage=<n>` adds n
 * approvals, questions and forms from 20 agents over 6 projects; `?firstrun` starts as a
 * new Beckon does, empty and on its getting-started guide; `?team` follows four team inboxes, one
 * in each state, with two questions waiting in one.
 */
export function installMockBackend(): void {
  // The mock's own work is measured (`mock:*`) so start-up timings can leave it out.
  const seeding = performance.now();
  const backend = new MockBackend();
  if (new URLSearchParams(window.location.search).has("unavailable")) {
    backend.bootstrapError = { kind: "unavailable", message: "The database at /home/you/.local/share/dev.beckon.desktop/beckon.db was written by a newer Beckon (schema 7; this one knows 5). Update Beckon to open it." };
  }
  if (new URLSearchParams(window.location.search).has("firstrun")) backend.firstRun();
  if (new URLSearchParams(window.location.search).has("team")) backend.followTeams();
  const start = new URLSearchParams(window.location.search).get("start");
  const [to, id] = start?.split(":") ?? [];
  if (to === "question" || to === "session") backend.startAt = { to, id: id ?? "" };
  else if (to === "problem") backend.startAt = { to, message: id ?? "" };
  const waiting = Math.min(Number(new URLSearchParams(window.location.search).get("waiting") ?? 0) || 0, 5000);
  for (let i = 0; i < waiting; i += 1) {
    const session = backend.addSession(`release-bot-${i % 7}`, `Release ${i}`);
    backend.ask(session, {
      questions: [{ question: `Ship release candidate ${i} to the staging fleet?`, header: "Release", multiSelect: false, options: [{ label: "Ship", description: "Roll it out now" }, { label: "Wait" }] }],
    });
  }
  const triage = Math.min(Number(new URLSearchParams(window.location.search).get("triage") ?? 0) || 0, 20_000);
  if (triage > 0) backend.seedTriage(triage);
  performance.measure("mock:seed", { start: seeding });
  mockWindows("main");
  mockIPC(
    (cmd, args) => {
      const start = performance.now();
      const reply = backend.handle(cmd, (args ?? {}) as Record<string, unknown>);
      performance.measure(`mock:${cmd}`, { start });
      return reply;
    },
    { shouldMockEvents: true },
  );
  window.__beckonMock = { backend, navigate: (target) => emit("navigate", target) };
}
