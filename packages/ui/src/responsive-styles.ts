/**
 * The component on narrow screens, down to 320 px. The table becomes one card per key below
 * 600 px of the component's own width (a container query: a sidebar narrows it as a phone does),
 * each value after its column's name; dialogs follow the viewport, where the browser puts them.
 */
import { css } from "lit";

export const responsiveStyles = css`
  @container keyward (max-width: 600px) {
    table,
    tbody,
    tr,
    th,
    td {
      display: block;
    }
    thead {
      position: absolute;
      width: 1px;
      height: 1px;
      overflow: hidden;
      clip: rect(0 0 0 0);
    }
    tr {
      border: 1px solid var(--_border);
      border-radius: var(--_radius);
      padding: var(--_space) calc(var(--_space) * 1.5);
      margin-bottom: var(--_space);
    }
    th,
    td {
      border: 0;
      padding: calc(var(--_space) * 0.25) 0;
      overflow-wrap: anywhere;
    }
    th[scope="row"] {
      color: var(--_text);
      font-size: 1em;
    }
    td[data-label] {
      display: grid;
      grid-template-columns: minmax(6em, 35%) minmax(0, 1fr);
      gap: var(--_space);
    }
    td[data-label] > * {
      justify-self: start;
    }
    /* A cell's value is one grid item, its second line ("from 127.0.0.1") included: loose text
       and <br> would each take a grid cell, and the second line would fall under the label. */
    td[data-label] > .cell {
      display: block;
      min-width: 0;
    }
    /* The column's name, for the eyes: the table's own header still names the cell for a reader. */
    td[data-label]::before {
      content: attr(data-label);
      color: var(--_muted);
      font-size: 0.9em;
    }
    td.actions {
      display: flex;
      flex-wrap: wrap;
      gap: var(--_space);
      padding-top: var(--_space);
    }
    td.actions button {
      margin: 0;
    }
    .usage {
      padding: var(--_space);
    }
    .endpoints li {
      grid-template-columns: minmax(0, 1fr) auto;
    }
    .endpoint-name {
      grid-column: 1 / -1;
      overflow-wrap: anywhere;
    }
  }
  /* Every fourth day's label only: seven would touch below 420 px. */
  @container keyward (max-width: 420px) {
    .chart-label-minor {
      display: none;
    }
  }
  @media (max-width: 480px) {
    dialog {
      max-width: calc(100vw - 16px);
      max-height: calc(100dvh - 16px);
      padding: calc(var(--_space) * 1.5);
    }
    dialog form > .buttons {
      bottom: calc(var(--_space) * -1.5);
      margin-bottom: calc(var(--_space) * -1.5);
      padding-bottom: calc(var(--_space) * 1.5);
    }
  }
  /* A finger needs a bigger target than a pointer (WCAG 2.5.8 asks 24 px; 44 px is comfortable). */
  @media (pointer: coarse) {
    button,
    select,
    input[type="text"],
    input[type="date"],
    textarea {
      min-height: 44px;
    }
    .checkbox {
      padding: calc(var(--_space) * 0.75) 0;
    }
    .checkbox input {
      width: 20px;
      height: 20px;
    }
  }
`;
