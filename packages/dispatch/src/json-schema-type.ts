/**
 * Type level only: the TypeScript type a literal JSON Schema describes, so a handler's arguments
 * are typed from an inline (or `as const`) schema. Covers what tool schemas use: `type` (also as a
 * list), `properties` + `required`, `additionalProperties`, `items`, `enum`, `const`, `anyOf`,
 * `oneOf`, `allOf`. `$ref`, `not`, `if`/`then` and `patternProperties` map to `unknown`.
 */

type Simplify<T> = { [K in keyof T]: T[K] } & {};

type UnionToIntersection<U> = (U extends unknown ? (u: U) => void : never) extends (i: infer I) => void
  ? I
  : never;

// A `required` list that is not literal (`string[]`) says nothing: its properties stay optional.
type RequiredKeys<S> = S extends { readonly required: readonly (infer R)[] }
  ? string extends R
    ? never
    : R
  : never;

type Additional<S> = S extends { readonly additionalProperties: false }
  ? unknown
  : S extends { readonly additionalProperties: infer A extends object }
    ? { [key: string]: JsonSchemaType<A> | undefined }
    : { [key: string]: unknown };

type ObjectOf<S> = S extends { readonly properties: infer P extends object }
  ? Simplify<
      {
        -readonly [K in keyof P as K extends RequiredKeys<S> ? K : never]: JsonSchemaType<P[K]>;
      } & {
        -readonly [K in keyof P as K extends RequiredKeys<S> ? never : K]?: JsonSchemaType<P[K]>;
      } & Additional<S>
    >
  : Simplify<Additional<S>>;

type ArrayOf<S> = S extends { readonly items: infer I } ? JsonSchemaType<I>[] : unknown[];

type OfType<T, S> = T extends 'string'
  ? string
  : T extends 'number' | 'integer'
    ? number
    : T extends 'boolean'
      ? boolean
      : T extends 'null'
        ? null
        : T extends 'array'
          ? ArrayOf<S>
          : T extends 'object'
            ? ObjectOf<S>
            : unknown;

type Mutable<T> = T extends readonly unknown[]
  ? { -readonly [K in keyof T]: Mutable<T[K]> }
  : T extends object
    ? { -readonly [K in keyof T]: Mutable<T[K]> }
    : T;

/** The type of values a literal JSON Schema accepts (`unknown` where the schema is not literal enough to say). */
export type JsonSchemaType<S> = S extends true
  ? unknown
  : S extends false
    ? never
    : S extends { readonly const: infer C }
      ? Mutable<C>
      : S extends { readonly enum: readonly (infer E)[] }
        ? Mutable<E>
        : S extends { readonly type: readonly (infer T)[] }
          ? OfType<T, S>
          : S extends { readonly type: infer T extends string }
            ? OfType<T, S>
            : S extends { readonly anyOf: readonly (infer A)[] }
              ? JsonSchemaType<A>
              : S extends { readonly oneOf: readonly (infer O)[] }
                ? JsonSchemaType<O>
                : S extends { readonly allOf: infer All extends readonly unknown[] }
                  ? UnionToIntersection<{ [K in keyof All]: JsonSchemaType<All[K]> }[number]>
                  : unknown;
