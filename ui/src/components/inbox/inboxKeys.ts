/** Whether keys typed into `target` are text (an input other than a box or button, a textarea, a select, editable content). */
export function isTextField(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target.isContentEditable) return true;
  if (target instanceof HTMLTextAreaElement || target instanceof HTMLSelectElement) return true;
  if (target instanceof HTMLInputElement) return !["checkbox", "radio", "button", "submit", "reset"].includes(target.type);
  return false;
}

/** The triage keys, for the key list overlay. */
export const KEY_LIST: readonly (readonly [string, string])[] = [
  ["j / ↓", "Next question"],
  ["k / ↑", "Previous question"],
  ["Enter", "Go into the open card"],
  ["1 – 4", "Choose that option of the open card (approvals: focus Allow, Allow always, Deny)"],
  ["a", "Allow the focused approval once"],
  ["d", "Deny the focused approval (with an optional message)"],
  ["s", "Skip (decline) the focused question"],
  ["x", "Select or unselect the focused question"],
  ["/", "Search"],
  ["?", "This list"],
  ["Esc", "Close a dialog, leave the search box"],
];

/**
 * Picks option `position` (0-based) of the first item of the card in `detail`: a single-select
 * question's radio is checked (nothing is sent); an approval's button is focused, so one more
 * Enter decides. Returns whether something was picked.
 */
export function pickOption(detail: HTMLElement, position: number, labels: readonly string[]): boolean {
  const approval = detail.querySelector<HTMLFormElement>("form.approval");
  if (approval) {
    const label = labels[position];
    const button = [...approval.querySelectorAll<HTMLButtonElement>(".qactions button")].find((candidate) => candidate.textContent?.trim() === label);
    button?.focus();
    return button !== undefined;
  }
  const item = detail.querySelector(".qitem");
  const radios = item ? [...item.querySelectorAll<HTMLInputElement>("input[type=radio]")] : [];
  const radio = radios[position];
  if (!radio || radio.disabled) return false;
  radio.click();
  return true;
}
