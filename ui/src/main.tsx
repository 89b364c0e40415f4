import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { App } from "./App";
import { NowProvider } from "./hooks/now";
import { StoreProvider } from "./state/store";
import { ToastProvider } from "./state/toasts";
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
  createRoot(root).render(
    <StrictMode>
      <ToastProvider>
        <StoreProvider>
          <NowProvider>
            <App />
          </NowProvider>
        </StoreProvider>
      </ToastProvider>
    </StrictMode>,
  );
}

void start();
