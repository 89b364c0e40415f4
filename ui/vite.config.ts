import { defineConfig, type Plugin } from "vite";
import react from "@vitejs/plugin-react";

/**
 * Asks for the window's main chunk (`src/mount.tsx`, React and the inbox) from the page's head,
 * so it is fetched and parsed while the small entry script asks for the snapshot, rather than
 * after it.
 */
function preloadMount(): Plugin {
  return {
    name: "beckon-preload-mount",
    apply: "build",
    transformIndexHtml: {
      order: "post",
      handler(_html, context) {
        const chunk = Object.values(context.bundle ?? {}).find((output) => output.type === "chunk" && output.facadeModuleId?.endsWith("/src/mount.tsx"));
        if (!chunk) throw new Error("the build has no chunk for src/mount.tsx");
        return [{ tag: "link", attrs: { rel: "modulepreload", crossorigin: true, href: `./${chunk.fileName}` }, injectTo: "head" }];
      },
    },
  };
}

// The window is embedded by Tauri from `ui/dist` and loaded from a custom protocol, so every
// asset path is relative and nothing is fetched from the network.
export default defineConfig(({ mode }) => ({
  base: "./",
  plugins: [react(), preloadMount()],
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
