/**
 * The component's styles. Every colour, the font, the radius and the spacing come from a
 * `--keyward-*` custom property with a default (docs/ui.md lists them), so a host themes the
 * component from its own stylesheet without reaching into the shadow root. The defaults, light and
 * dark, meet WCAG AA contrast (checked by axe-core in the browser tests).
 */
import { css } from "lit";
import { responsiveStyles } from "./responsive-styles.js";
import { themeStyles } from "./theme-styles.js";

const baseStyles = css`
  :host {
    /* The colours (--_text, --_accent…) are the theme's: theme-styles.ts. */
    --_chart: var(--keyward-chart-bar-color, var(--_accent));
    --_radius: var(--keyward-radius, 6px);
    --_space: var(--keyward-spacing, 8px);
    display: block;
    /* Narrow layouts follow the component's own width, not the window's (responsive-styles.ts). */
    container: keyward / inline-size;
    font-family: var(--keyward-font-family, system-ui, -apple-system, "Segoe UI", sans-serif);
    font-size: var(--keyward-font-size, 14px);
    line-height: 1.45;
    color: var(--_text);
    background: var(--_background);
  }
  [hidden] {
    display: none !important;
  }
  h2,
  h3 {
    margin: 0;
    font-size: 1.15em;
  }
  h3 {
    font-size: 1em;
  }
  .toolbar {
    display: flex;
    flex-wrap: wrap;
    align-items: center;
    justify-content: space-between;
    gap: var(--_space);
    margin-bottom: calc(var(--_space) * 1.5);
  }
  .muted {
    color: var(--_muted);
  }
  button {
    font: inherit;
    border-radius: var(--_radius);
    border: 1px solid var(--_border);
    background: var(--_surface);
    color: var(--_text);
    padding: calc(var(--_space) * 0.5) calc(var(--_space) * 1.25);
    cursor: pointer;
  }
  button.primary {
    background: var(--_accent);
    border-color: var(--_accent);
    color: var(--_accent-text);
  }
  button.danger {
    background: var(--_danger);
    border-color: var(--_danger);
    color: var(--_danger-text);
  }
  button:disabled {
    opacity: 0.6;
    cursor: not-allowed;
  }
  button:focus-visible,
  input:focus-visible,
  select:focus-visible,
  [tabindex="-1"]:focus-visible {
    outline: 2px solid var(--_focus);
    outline-offset: 2px;
  }
  .errors {
    border: 1px solid var(--_danger);
    border-radius: var(--_radius);
    color: var(--_danger);
    padding: var(--_space) calc(var(--_space) * 1.5);
    margin-bottom: var(--_space);
  }
  .errors ul {
    margin: 0;
    padding-left: 1.2em;
  }
  .errors.state p {
    margin: 0 0 var(--_space);
  }
  .state {
    margin: var(--_space) 0;
  }
  .field-error {
    color: var(--_danger);
    font-size: 0.9em;
  }
  [aria-invalid="true"],
  fieldset.invalid {
    border-color: var(--_danger) !important;
  }
  table {
    width: 100%;
    border-collapse: collapse;
  }
  th,
  td {
    text-align: left;
    padding: calc(var(--_space) * 0.75) var(--_space);
    border-bottom: 1px solid var(--_border);
    vertical-align: top;
  }
  th {
    font-weight: 600;
    color: var(--_muted);
    font-size: 0.9em;
  }
  .hint {
    white-space: nowrap;
  }
  td.actions button {
    margin: 0 calc(var(--_space) * 0.5) calc(var(--_space) * 0.5) 0;
  }
  .badge {
    display: inline-block;
    border: 1px solid var(--_border);
    border-radius: var(--_radius);
    padding: 0 calc(var(--_space) * 0.5);
    font-size: 0.85em;
    background: var(--_surface);
  }
  code {
    font-family: var(--keyward-font-family-mono, ui-monospace, SFMono-Regular, Menlo, monospace);
    font-size: 0.92em;
  }
  .status {
    display: inline-block;
    border-radius: 999px;
    padding: 0 calc(var(--_space) * 0.75);
    border: 1px solid currentColor;
    font-size: 0.85em;
    font-weight: 600;
  }
  .status-active {
    color: var(--_success);
  }
  .status-expired {
    color: var(--_warning);
  }
  .status-revoked {
    color: var(--_danger);
  }
  .status-disabled {
    color: var(--_muted);
  }
  .owner-switcher {
    display: flex;
    flex-wrap: wrap;
    align-items: center;
    gap: var(--_space);
    margin-bottom: calc(var(--_space) * 1.5);
  }
  .owner-switcher select {
    min-width: 0;
    max-width: 100%;
  }
  .load-more {
    margin-top: var(--_space);
  }
  dialog {
    border: 1px solid var(--_border);
    border-radius: calc(var(--_radius) * 1.5);
    padding: calc(var(--_space) * 2.5);
    box-sizing: border-box;
    max-width: min(560px, calc(100vw - 32px));
    max-height: calc(100dvh - 32px);
    overflow: auto;
    width: 100%;
    color: var(--_text);
    background: var(--_background);
  }
  dialog::backdrop {
    background: rgb(0 0 0 / 0.4);
  }
  form {
    display: grid;
    gap: calc(var(--_space) * 1.5);
  }
  label,
  legend {
    font-weight: 600;
  }
  .field {
    display: grid;
    gap: calc(var(--_space) * 0.5);
  }
  input[type="text"],
  input[type="date"],
  textarea,
  select {
    font: inherit;
    padding: calc(var(--_space) * 0.5);
    border: 1px solid var(--_muted);
    border-radius: var(--_radius);
    color: var(--_text);
    background: var(--_background);
  }
  fieldset {
    border: 1px solid var(--_border);
    border-radius: var(--_radius);
    padding: var(--_space) calc(var(--_space) * 1.5);
    margin: 0;
  }
  .checkbox {
    display: flex;
    gap: var(--_space);
    align-items: baseline;
    font-weight: normal;
    padding: calc(var(--_space) * 0.25) 0;
  }
  .hint-text {
    font-size: 0.9em;
    color: var(--_muted);
    font-weight: normal;
  }
  .buttons {
    display: flex;
    flex-wrap: wrap;
    justify-content: flex-end;
    gap: var(--_space);
  }
  /* A long form (create on a phone) scrolls inside the dialog; its buttons stay in view at the
     dialog's bottom edge, so Create is reachable without scrolling to the end first. */
  dialog form > .buttons {
    position: sticky;
    bottom: calc(var(--_space) * -2.5);
    margin-bottom: calc(var(--_space) * -2.5);
    padding: var(--_space) 0 calc(var(--_space) * 2.5);
    border-top: 1px solid var(--_border);
    background: var(--_background);
  }
  .secret {
    display: flex;
    flex-wrap: wrap;
    gap: var(--_space);
  }
  .secret input {
    flex: 1 1 14em;
    min-width: 0;
    font-family: var(--keyward-font-family-mono, ui-monospace, SFMono-Regular, Menlo, monospace);
    padding: calc(var(--_space) * 0.5);
    border: 1px solid var(--_muted);
    border-radius: var(--_radius);
    color: var(--_text);
    background: var(--_surface);
  }
  .warning {
    border-left: 4px solid var(--_warning);
    background: var(--_surface);
    padding: var(--_space) calc(var(--_space) * 1.5);
    margin: 0;
  }
  .usage {
    margin-top: calc(var(--_space) * 3);
    border: 1px solid var(--_border);
    border-radius: var(--_radius);
    padding: calc(var(--_space) * 2);
  }
  textarea {
    resize: vertical;
    min-width: 0;
  }
  textarea:focus-visible {
    outline: 2px solid var(--_focus);
    outline-offset: 2px;
  }
  .usage-summary {
    display: flex;
    flex-wrap: wrap;
    gap: var(--_space) calc(var(--_space) * 3);
    margin: var(--_space) 0 calc(var(--_space) * 2);
  }
  .usage-summary dt {
    color: var(--_muted);
    font-size: 0.9em;
  }
  .usage-summary dd {
    margin: 0;
    font-weight: 600;
  }
  .usage-limits dd {
    display: grid;
    gap: calc(var(--_space) * 0.25);
  }
  .usage-limits .muted {
    font-weight: normal;
    font-size: 0.9em;
  }
  .usage-limits meter {
    width: 100%;
    max-width: 12em;
  }
  .audit-log {
    list-style: none;
    padding: 0;
    margin: 0 0 var(--_space);
    display: grid;
    gap: calc(var(--_space) * 0.5);
  }
  .audit-log li {
    display: flex;
    flex-wrap: wrap;
    gap: 0 var(--_space);
    border-bottom: 1px solid var(--_border);
    padding-bottom: calc(var(--_space) * 0.5);
    overflow-wrap: anywhere;
  }
  .event-type {
    font-weight: 600;
  }
  .chart {
    width: 100%;
    max-width: 720px;
    height: 160px;
    display: block;
  }
  .chart-grid {
    stroke: var(--_border);
    stroke-dasharray: 4 4;
  }
  .chart-bar {
    fill: var(--_chart);
  }
  .chart-axis {
    stroke: var(--_border);
  }
  .chart-label {
    fill: var(--_muted);
    font-size: 12px;
  }
  .endpoints {
    list-style: none;
    padding: 0;
    margin: 0;
    display: grid;
    gap: calc(var(--_space) * 0.5);
  }
  .endpoints li {
    display: grid;
    grid-template-columns: minmax(0, 2fr) minmax(0, 3fr) auto;
    gap: var(--_space);
    align-items: center;
  }
  .endpoint-bar {
    width: 100%;
    height: 10px;
  }
  .endpoint-count {
    font-variant-numeric: tabular-nums;
    font-weight: 600;
  }
  .visually-hidden {
    position: absolute;
    width: 1px;
    height: 1px;
    overflow: hidden;
    clip: rect(0 0 0 0);
    white-space: nowrap;
  }
`;

export const keysStyles = [themeStyles, baseStyles, responsiveStyles];
