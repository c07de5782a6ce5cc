/**
 * One validation problem, in the shape FastAPI/Pydantic use, so clients written against the contract
 * can read it: `loc` starts with where the value came from (`body`, `query`, `path`).
 */
export interface ValidationIssue {
  loc: (string | number)[];
  msg: string;
  /** A Pydantic error type name: `missing`, `string_type`, `list_type`, `string_too_short`, ... */
  type: string;
}
