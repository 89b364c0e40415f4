import type { RequestId } from "../bindings/RequestId";
import type { SessionId } from "../bindings/SessionId";

/** Where the window is. */
export type Route =
  | { view: "inbox" }
  | { view: "new" }
  | { view: "settings" }
  | { view: "guide" }
  | { view: "session"; id: SessionId }
  | { view: "question"; id: RequestId };

/** Reads a route from the location hash (`#/session/<id>`); the inbox when it is not one. */
export function parseHash(hash: string): Route {
  const [, view, id] = hash.replace(/^#/, "").split("/");
  if (view === "new") return { view: "new" };
  if (view === "settings") return { view: "settings" };
  if (view === "guide") return { view: "guide" };
  if (view === "session" && id) return { view: "session", id: decodeURIComponent(id) };
  if (view === "question" && id) return { view: "question", id: decodeURIComponent(id) };
  return { view: "inbox" };
}

/** The location hash for a route. */
export function routeToHash(route: Route): string {
  switch (route.view) {
    case "inbox":
    case "new":
    case "settings":
    case "guide":
      return `#/${route.view}`;
    case "session":
    case "question":
      return `#/${route.view}/${encodeURIComponent(route.id)}`;
  }
}
