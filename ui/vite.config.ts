import { defineConfig } from "vite";
import react from "@vitejs/plugin-react";

// The window is embedded by Tauri from `ui/dist` and loaded from a custom protocol, so every
// asset path is relative and nothing is fetched from the network.
export default defineConfig(({ mode }) => ({
  base: "./",
  plugins: [react()],
  clearScreen: false,
  build: {
    outDir: mode === "mock" ? "dist-mock" : "dist",
    emptyOutDir: true,
    target: "es2022",
    sourcemap: false,
    assetsInlineLimit: 0,
  },
  server: { port: 1420, strictPort: true },
}));
