/**
 * The colours, light and dark. `theme="light|dark|auto"` on the element picks one; `auto` (the
 * default, and any other value) follows the person's `prefers-color-scheme`. Both palettes are only
 * defaults: each colour is read from its `--keyward-color-*` property first, so a host's own
 * colours win in either theme. `color-scheme` makes the browser's own parts (date picker, select,
 * scrollbars) match.
 */
import { css } from "lit";

const lightPalette = css`
  --_text: var(--keyward-color-text, #1f2328);
  --_muted: var(--keyward-color-muted, #57606a);
  --_background: var(--keyward-color-background, #ffffff);
  --_surface: var(--keyward-color-surface, #f6f8fa);
  --_border: var(--keyward-color-border, #d0d7de);
  --_accent: var(--keyward-color-accent, #0a58ca);
  --_accent-text: var(--keyward-color-accent-text, #ffffff);
  --_danger: var(--keyward-color-danger, #b42318);
  --_danger-text: var(--keyward-color-danger-text, #ffffff);
  --_success: var(--keyward-color-success, #116329);
  --_warning: var(--keyward-color-warning, #7d4e00);
  --_focus: var(--keyward-color-focus, #0a58ca);
  color-scheme: light;
`;

const darkPalette = css`
  --_text: var(--keyward-color-text, #e6edf3);
  --_muted: var(--keyward-color-muted, #9198a1);
  --_background: var(--keyward-color-background, #0d1117);
  --_surface: var(--keyward-color-surface, #161b22);
  --_border: var(--keyward-color-border, #3d444d);
  --_accent: var(--keyward-color-accent, #1f6feb);
  --_accent-text: var(--keyward-color-accent-text, #ffffff);
  /* Light enough to read as text on the dark background; so the text on it is dark. */
  --_danger: var(--keyward-color-danger, #f85149);
  --_danger-text: var(--keyward-color-danger-text, #0d1117);
  --_success: var(--keyward-color-success, #3fb950);
  --_warning: var(--keyward-color-warning, #d29922);
  --_focus: var(--keyward-color-focus, #4493f8);
  color-scheme: dark;
`;

export const themeStyles = css`
  :host {
    ${lightPalette}
  }
  :host([theme="dark"]) {
    ${darkPalette}
  }
  @media (prefers-color-scheme: dark) {
    :host(:not([theme="light"])) {
      ${darkPalette}
    }
  }
`;
