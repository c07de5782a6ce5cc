// `express4` is the devDependency alias `npm:express@^4`; Express 4's API is the subset of
// @types/express these tests use.
declare module "express4" {
  import express from "express";
  export default express;
}
