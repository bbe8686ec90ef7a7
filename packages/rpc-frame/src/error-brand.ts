/**
 * Error classes recognised across installed copies of a package: two versions of the same package
 * in one process must still agree that an error is theirs, so `instanceof` checks a brand (a
 * registered symbol) as well as the prototype chain.
 */

/** Where a branded class keeps its brand symbol (an own property: subclasses do not inherit it). */
const BRAND_OF = Symbol.for('@agentd/rpc-frame/brandOf');

type ErrorClass = abstract new (...args: never[]) => Error;

/**
 * Brands `errorClass` as `brand` (e.g. `@agentd/lifecycle/Refusal`): its instances carry the brand
 * on their prototype (no cost per error), and `instanceof errorClass` is also true for an error
 * made by another copy of the class. An unbranded subclass keeps the ordinary prototype check.
 */
export function brandErrorClass(errorClass: ErrorClass, brand: string): void {
  const key = Symbol.for(brand);
  Object.defineProperty(errorClass.prototype, key, { value: true });
  Object.defineProperty(errorClass, BRAND_OF, { value: key });
  Object.defineProperty(errorClass, Symbol.hasInstance, { value: hasBrandedInstance, configurable: true });
}

/** True when `value` is an error carrying `brand` (the same test `instanceof` makes). */
export function hasErrorBrand(value: unknown, brand: string): boolean {
  return value instanceof Error && (value as unknown as Record<symbol, unknown>)[Symbol.for(brand)] === true;
}

function hasBrandedInstance(this: ErrorClass, value: unknown): boolean {
  if (Function.prototype[Symbol.hasInstance].call(this, value)) return true;
  // Only the class that was branded answers by brand; a subclass of it answers by prototype alone.
  const key = Object.hasOwn(this, BRAND_OF)
    ? (this as unknown as Record<symbol, symbol>)[BRAND_OF]
    : undefined;
  return (
    key !== undefined && value instanceof Error && (value as unknown as Record<symbol, unknown>)[key] === true
  );
}
