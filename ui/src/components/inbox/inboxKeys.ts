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
  ["Enter", "Send the option chosen with 1 – 4, or go into the open card's form"],
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

/**
 * Enter from the list, on the card in `detail`. A question of one item whose option is chosen
 * is sent. Otherwise focus moves into the card's form: onto the chosen option, else its first
 * field, else its Submit; for an approval, onto the command it would run (to read it, scrolling
 * it by keyboard), else its Deny. Never onto the card's links.
 */
export function enterCard(detail: HTMLElement): void {
  const form = detail.querySelector<HTMLFormElement>("form.qform");
  if (!form) return;
  let target: HTMLElement | null;
  if (form.classList.contains("approval")) {
    target = form.querySelector<HTMLElement>(".approval-preview [tabindex='0'], textarea:not([disabled])") ?? form.querySelector<HTMLElement>(".qactions .button-danger:not([disabled])");
  } else {
    const chosen = form.querySelector<HTMLInputElement>("input:checked:not([disabled])");
    if (chosen?.type === "radio" && form.querySelectorAll("[data-item-index]").length === 1) {
      form.requestSubmit();
      return;
    }
    target = chosen ?? form.querySelector<HTMLElement>("[data-item-index] :is(input, textarea, select):not([disabled])") ?? form.querySelector<HTMLElement>("button[type=submit]:not([disabled])");
  }
  target?.focus();
}
