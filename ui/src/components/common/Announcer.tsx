import { useAnnouncements } from "../../hooks/useAnnouncements";

/**
 * The window's polite live region: what a screen reader says of the inbox as it changes (see
 * `announcement`), from the questions the window had once it was ready. A component of its own,
 * so the inbox changing redraws only it.
 */
export function Announcer() {
  const announced = useAnnouncements();
  return (
    <div className="visually-hidden" role="status" aria-live="polite" aria-atomic="true" data-announcer="">
      {announced}
    </div>
  );
}
