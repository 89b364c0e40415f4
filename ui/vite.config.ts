import { readdirSync } from "node:fs";
import { join, relative, sep } from "node:path";
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

/** The service worker's entry, built to `sw.js` at the root so its scope is the whole window. */
const WORKER_ENTRY = "src/sw/worker.ts";
const WORKER_FILE = "sw.js";

/**
 * Writes the app's shell into the service worker: every file the build wrote (the page, its
 * scripts and styles, the manifest and icons), so the worker keeps exactly this build's files.
 * The worker must stand alone (a classic script): it may share no code with the page.
 */
function workerShell(): Plugin {
  return {
    name: "beckon-worker-shell",
    apply: "build",
    generateBundle(_options, bundle) {
      const worker = bundle[WORKER_FILE];
      if (!worker || worker.type !== "chunk") throw new Error(`the build has no ${WORKER_FILE}`);
      if (worker.imports.length > 0 || worker.exports.length > 0) {
        throw new Error(`${WORKER_FILE} must stand alone, but it imports ${worker.imports.join(", ")} and exports ${worker.exports.join(", ")}`);
      }
      // What `public/` holds is copied as it is, outside the bundle.
      const copied = readdirSync("public", { recursive: true, withFileTypes: true })
        .filter((entry) => entry.isFile())
        .map((entry) => relative("public", join(entry.parentPath, entry.name)).split(sep).join("/"));
      const files = [...Object.keys(bundle), ...copied].filter((name) => name !== WORKER_FILE && !name.endsWith(".map"));
      const shell = ["./", ...files.filter((name) => name !== "index.html").map((name) => `./${name}`)].sort();
      if (!worker.code.includes("BECKON_SHELL")) throw new Error(`${WORKER_FILE} does not name BECKON_SHELL`);
      worker.code = `const BECKON_SHELL = ${JSON.stringify(shell)};\n${worker.code}`;
    },
  };
}

// The window is embedded by Tauri from `ui/dist` and loaded from a custom protocol, so every
// asset path is relative and nothing is fetched from the network.
export default defineConfig(({ mode }) => ({
  base: "./",
  plugins: [react(), preloadMount(), workerShell()],
  clearScreen: false,
  build: {
    outDir: mode === "mock" ? "dist-mock" : "dist",
    emptyOutDir: true,
    target: "es2022",
    sourcemap: false,
    assetsInlineLimit: 0,
    rollupOptions: {
      input: { index: "index.html", sw: WORKER_ENTRY },
      output: { entryFileNames: (chunk) => (chunk.name === "sw" ? WORKER_FILE : "assets/[name]-[hash].js") },
    },
  },
  server: { port: 1420, strictPort: true },
}));
