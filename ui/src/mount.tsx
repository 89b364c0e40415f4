import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { App } from "./App";
import { NowProvider } from "./hooks/now";
import { StoreProvider } from "./state/store";
import { ToastProvider } from "./state/toasts";

/** Draws the window into `root`. */
export function mount(root: HTMLElement): void {
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
