/**
 * The parts of an OpenAPI 3.1 document Keyward writes, typed loosely enough that features can
 * add theirs. A JSON Schema here is the 2020-12 dialect OpenAPI 3.1 uses, as a plain object.
 */

export type JsonSchema = { [keyword: string]: unknown };

export type HttpMethod = "get" | "put" | "post" | "delete" | "options" | "head" | "patch";

export interface HeaderObject {
  description?: string;
  required?: boolean;
  schema: JsonSchema;
}

export interface MediaTypeObject {
  schema: JsonSchema;
}

export interface ResponseObject {
  description: string;
  headers?: Record<string, HeaderObject | ReferenceObject>;
  content?: Record<string, MediaTypeObject>;
}

export interface ReferenceObject {
  $ref: string;
}

export interface ParameterObject {
  name: string;
  in: "path" | "query" | "header" | "cookie";
  required?: boolean;
  description?: string;
  schema: JsonSchema;
}

export interface OperationObject {
  operationId: string;
  summary?: string;
  description?: string;
  tags?: string[];
  parameters?: (ParameterObject | ReferenceObject)[];
  requestBody?: {
    required?: boolean;
    description?: string;
    content: Record<string, MediaTypeObject>;
  };
  /** Status code (as a string) → response. Every status an operation can answer is listed. */
  responses: Record<string, ResponseObject | ReferenceObject>;
  /** `[]` for an operation that takes no credentials. */
  security?: Record<string, string[]>[];
}

export type PathItemObject = Partial<Record<HttpMethod, OperationObject>> & {
  parameters?: (ParameterObject | ReferenceObject)[];
};

export interface OpenApiDocument {
  openapi: "3.1.0";
  info: { title: string; version: string; description?: string };
  jsonSchemaDialect?: string;
  servers?: { url: string; description?: string }[];
  tags?: { name: string; description?: string }[];
  paths: Record<string, PathItemObject>;
  components: {
    schemas: Record<string, JsonSchema>;
    responses: Record<string, ResponseObject>;
    headers: Record<string, HeaderObject>;
    parameters: Record<string, ParameterObject>;
    securitySchemes: Record<string, Record<string, unknown>>;
  };
  security?: Record<string, string[]>[];
}
