/**
 * The toolbar on narrow outputs: where its controls do not fit on one row (a notebook output is
 * often 800-1000 px wide), the less used ones move into two menus, "Open ▾" (open modules, open
 * everything, collapse all) and "More ▾" (exports, theme, hot spots, transitions); where they
 * fit, every control stays one click away. The same elements move (their listeners, states and
 * `data-action`s go with them), so the toolbar's click handling and the tab order follow.
 *
 * Menus follow the WAI-ARIA menu button pattern: the button has `aria-haspopup`/`aria-expanded`;
 * Enter, Space or ↓ open it on the first item, ↑ on the last; ↑/↓, Home and End move between
 * items, Escape closes it and gives the focus back to its button, Tab or a click elsewhere closes
 * it; choosing an item runs it and closes the menu.
 */

interface MenuSpec {
  readonly name: string;
  readonly text: string;
  readonly title: string;
  /** Selectors of the toolbar controls the menu holds, in order, with their text inside the menu (null: their own). */
  readonly items: readonly (readonly [string, string | null])[];
}

const MENUS: readonly MenuSpec[] = [
  {
    name: "open",
    text: "Open ▾",
    title: "Open or close modules",
    items: [
      ['[data-action="open-modules"]', null],
      ['[data-action="expand-all"]', null],
      ['[data-action="collapse-all"]', null],
    ],
  },
  {
    name: "more",
    text: "More ▾",
    title: "Exports, theme, hot spots and transitions",
    items: [
      ['[data-action="export-svg"]', "Export SVG"],
      ['[data-action="export-png"]', "Export PNG"],
      ['[data-action="export-pdf"]', "Export PDF"],
      ['[data-action="toggle-theme"]', "Light / dark theme"],
      ['[data-control="hot-spots"]', null],
      ['[data-control="transitions"]', null],
    ],
  },
];

/** A control while it sits in a menu: where it goes back to, and what it showed there. */
interface Moved {
  readonly element: HTMLElement;
  readonly home: Comment;
  readonly text: string | null;
}

class Menu {
  readonly wrapper: HTMLSpanElement;
  readonly button: HTMLButtonElement;
  readonly list: HTMLDivElement;
  private readonly moved: Moved[] = [];
  private readonly observer: MutationObserver;

  constructor(
    private readonly spec: MenuSpec,
    id: string,
  ) {
    this.wrapper = document.createElement("span");
    this.wrapper.className = "vista-menu";
    this.wrapper.dataset["menu"] = spec.name;
    this.wrapper.hidden = true;
    this.button = document.createElement("button");
    this.button.type = "button";
    this.button.className = "vista-menu-button";
    this.button.dataset["menuButton"] = spec.name;
    this.button.textContent = spec.text;
    this.button.title = spec.title;
    this.button.setAttribute("aria-haspopup", "menu");
    this.button.setAttribute("aria-expanded", "false");
    this.button.setAttribute("aria-controls", id);
    this.list = document.createElement("div");
    this.list.className = "vista-menu-list";
    this.list.id = id;
    this.list.setAttribute("role", "menu");
    this.list.setAttribute("aria-label", spec.title);
    this.list.hidden = true;
    this.wrapper.append(this.button, this.list);
    // A toggle's aria-pressed, as the menu item's aria-checked (a menu item has no pressed state).
    this.observer = new MutationObserver((records) => {
      for (const r of records) syncChecked(r.target as HTMLElement);
    });
    this.button.addEventListener("click", () => this.setOpen(this.list.hidden !== false, "first"));
    this.button.addEventListener("keydown", (event) => {
      if (event.key !== "ArrowDown" && event.key !== "ArrowUp") return;
      event.preventDefault();
      event.stopPropagation();
      this.setOpen(true, event.key === "ArrowDown" ? "first" : "last");
    });
    this.list.addEventListener("keydown", (event) => this.onKey(event));
    // Closed once the item's own handlers and the toolbar's (on an ancestor) have run.
    this.list.addEventListener("click", (event) => {
      if ((event.target as Element).closest("[role^=menuitem]") === null) return;
      setTimeout(() => {
        const had = this.wrapper.contains(document.activeElement);
        this.setOpen(false, null);
        if (had) this.button.focus();
      }, 0);
    });
    this.wrapper.addEventListener("focusout", (event) => {
      const to = event.relatedTarget as Node | null;
      if (to === null || !this.wrapper.contains(to)) this.setOpen(false, null);
    });
  }

  /** Moves the menu's controls into it (compact) or back where they were (wide). */
  gather(toolbar: HTMLElement, compact: boolean): void {
    if (!compact) {
      this.setOpen(false, null);
      for (const m of this.moved.splice(0)) {
        m.home.replaceWith(m.element);
        m.element.removeAttribute("role");
        m.element.removeAttribute("aria-checked");
        m.element.removeAttribute("tabindex");
        if (m.text !== null) m.element.textContent = m.text;
      }
      this.observer.disconnect();
      this.wrapper.hidden = true;
      return;
    }
    for (const [selector, text] of this.spec.items) {
      const element = toolbar.querySelector<HTMLElement>(selector);
      if (element === null || this.list.contains(element)) continue;
      const home = document.createComment(`vista: ${this.spec.name} menu`);
      element.replaceWith(home);
      this.moved.push({ element, home, text: text === null ? null : element.textContent });
      if (text !== null) element.textContent = text;
      element.setAttribute("role", element.hasAttribute("aria-pressed") ? "menuitemcheckbox" : "menuitem");
      element.tabIndex = -1;
      syncChecked(element);
      this.observer.observe(element, { attributes: true, attributeFilter: ["aria-pressed"] });
      this.list.appendChild(element);
    }
    this.wrapper.hidden = this.moved.length === 0;
  }

  setOpen(open: boolean, focus: "first" | "last" | null): void {
    if (open === !this.list.hidden) return;
    this.list.hidden = !open;
    this.button.setAttribute("aria-expanded", String(open));
    const items = this.items();
    if (open && focus !== null) items[focus === "first" ? 0 : items.length - 1]?.focus();
  }

  private items(): HTMLElement[] {
    return [...this.list.querySelectorAll<HTMLElement>("[role^=menuitem]")].filter((e) => !e.hidden && !(e as HTMLButtonElement).disabled);
  }

  private onKey(event: KeyboardEvent): void {
    const items = this.items();
    const at = items.indexOf(document.activeElement as HTMLElement);
    let next: number | null = null;
    switch (event.key) {
      case "ArrowDown":
        next = (at + 1) % items.length;
        break;
      case "ArrowUp":
        next = (at - 1 + items.length) % items.length;
        break;
      case "Home":
        next = 0;
        break;
      case "End":
        next = items.length - 1;
        break;
      case "Escape":
        this.setOpen(false, null);
        this.button.focus();
        break;
      case "Tab":
        this.setOpen(false, null);
        return;
      default:
        return;
    }
    event.preventDefault();
    event.stopPropagation();
    if (next !== null) items[next]?.focus();
  }

  destroy(): void {
    this.observer.disconnect();
  }
}

function syncChecked(element: HTMLElement): void {
  if (element.getAttribute("role") === "menuitemcheckbox") {
    element.setAttribute("aria-checked", element.getAttribute("aria-pressed") === "true" ? "true" : "false");
  }
}

let menuIds = 0;

/**
 * Fits `toolbar` to its width from now on (a ResizeObserver), menus where its controls do not
 * fit on one row; call once every control is in it. Returns the cleanup.
 */
export function fitToolbar(toolbar: HTMLElement): () => void {
  const menus = MENUS.map((spec) => new Menu(spec, `vista-menu-${++menuIds}`));
  // Each menu button sits where its first control was; "More" just before the search box.
  const [open, more] = menus as [Menu, Menu];
  toolbar.querySelector(MENUS[0]!.items[0]![0])?.before(open.wrapper);
  const search = toolbar.querySelector(".vista-search");
  if (search !== null) search.before(more.wrapper);
  else toolbar.appendChild(more.wrapper);
  /** The width the toolbar needs to show every control on one row (measured once, when wide). */
  let wideWidth: number | null = null;
  let compact = false;
  const apply = (next: boolean): void => {
    compact = next;
    toolbar.dataset["compact"] = String(next);
    for (const m of menus) m.gather(toolbar, next);
  };
  const fit = (): void => {
    const width = toolbar.clientWidth;
    if (width === 0) return; // not laid out (a hidden tab): decided once it is
    if (wideWidth === null) {
      if (compact) apply(false);
      toolbar.classList.add("vista-toolbar-measure");
      wideWidth = toolbar.scrollWidth;
      toolbar.classList.remove("vista-toolbar-measure");
    }
    if (width < wideWidth !== compact) apply(width < wideWidth);
  };
  apply(false);
  const observer = typeof ResizeObserver === "function" ? new ResizeObserver(fit) : null;
  observer?.observe(toolbar);
  const outside = (event: PointerEvent): void => {
    for (const m of menus) if (!m.wrapper.contains(event.target as Node)) m.setOpen(false, null);
  };
  toolbar.ownerDocument.addEventListener("pointerdown", outside);
  return () => {
    observer?.disconnect();
    toolbar.ownerDocument.removeEventListener("pointerdown", outside);
    for (const m of menus) m.destroy();
  };
}
