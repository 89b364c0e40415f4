import { createElement, lazy, type ComponentType } from "react";

/** A view whose code is loaded when it is first shown (or asked for ahead with `preload`). */
export interface OnDemand<P extends object> {
  View: ComponentType<P>;
  /** Starts loading the view's code; resolves once it is loaded. */
  preload: () => Promise<unknown>;
}

/**
 * `load`'s component, loaded on demand. Until its code has arrived the view suspends (the
 * nearest `Suspense` shows its fallback); once it has, the view is drawn at once, with no
 * fallback frame, as if it had been in the first bundle. The loaded component is taken before
 * React retries the suspended render, so the lazy stand-in is never committed and the view
 * keeps one component type for its whole life.
 */
export function onDemand<P extends object>(load: () => Promise<ComponentType<P>>): OnDemand<P> {
  let loaded: ComponentType<P> | null = null;
  let loading: Promise<{ default: ComponentType<P> }> | null = null;
  const preload = () => {
    loading ??= load().then((component) => {
      loaded = component;
      return { default: component };
    });
    return loading;
  };
  const Lazy = lazy(preload);
  function View(props: P) {
    return createElement(loaded ?? Lazy, props);
  }
  return { View, preload };
}
