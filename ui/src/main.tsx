import { startEarly } from "./api/commands";
import { inDesktop } from "./api/transport";
import "./styles/index.css";

async function start() {
  // The mock build (`vite build --mode mock`) stands in for the Rust side; the real build
  // drops this branch and the mock module entirely.
  if (import.meta.env.MODE === "mock") {
    const { installMockBackend } = await import("./mock/install");
    installMockBackend();
  }
  const root = document.getElementById("root");
  if (!root) throw new Error("index.html has no #root");
  // The snapshot is asked for first, and arrives while the window's code (React and the views,
  // most of the page's script) loads and is parsed.
  startEarly();
  const { mount } = await import("./mount");
  mount(root);
  // In a browser on a team server, after the first frame: the installed app's shell and pushes.
  if (import.meta.env.MODE !== "mock" && !inDesktop()) {
    const { pushState, registerWorker } = await import("./api/webPush");
    await registerWorker();
    await pushState();
  }
}

void start();
