/** Source of the guest-side shim: builds the API object and console inside QuickJS from one bridge. */
import { OPERATION_KINDS } from './operation-kinds.js';

/**
 * Evaluates (inside QuickJS) to a function `(bridge, namespace, methodsJson, maxLogChars) => {run, isOpError}`.
 * The bridge is only ever a parameter, never a global; every built-in the shim relies on is captured
 * before user code runs, so tampering with prototypes later cannot change what crosses the bridge.
 */
export const GUEST_PRELUDE = `(function (bridge, namespace, methodsJson, maxLogChars) {
  'use strict';
  const G = globalThis;
  const jsonParse = JSON.parse;
  const jsonStringify = JSON.stringify;
  const ErrorCtor = Error;
  const TypeErrorCtor = TypeError;
  const StringCtor = String;
  const apply = Reflect.apply;
  const defineProperty = Object.defineProperty;
  const freeze = Object.freeze;
  const create = Object.create;
  const PromiseCtor = Promise;
  const promiseThen = Promise.prototype.then;
  const promiseResolve = Promise.resolve;
  const waiting = new Map();
  const mapGet = Map.prototype.get;
  const mapSet = Map.prototype.set;
  const mapDelete = Map.prototype.delete;
  const arrayMap = Array.prototype.map;
  const arrayJoin = Array.prototype.join;
  const stringSlice = String.prototype.slice;
  // Guest-only, but nothing here needs shared memory or blocking waits.
  delete G.SharedArrayBuffer;
  delete G.Atomics;
  const opErrors = new WeakSet();
  const weakAdd = WeakSet.prototype.add;
  const weakHas = WeakSet.prototype.has;

  function describeKey(kind, id) {
    return kind + '_' + StringCtor(id);
  }

  function invoke(kind, id, args) {
    if (typeof id !== 'string') {
      throw new TypeErrorCtor(namespace + '.' + kind + '(id, args): id must be a string');
    }
    let json;
    try {
      json = jsonStringify(args === undefined ? {} : args);
    } catch (cause) {
      throw new TypeErrorCtor('Arguments for ' + describeKey(kind, id) + ' are not JSON-serializable: ' + (cause && cause.message));
    }
    if (typeof json !== 'string') json = '{}';
    // The host answers at once with a reply envelope, or with a call id it will deliver() later.
    const ticket = bridge(kind, id, json);
    const pending =
      typeof ticket === 'string'
        ? apply(promiseResolve, PromiseCtor, [ticket])
        : new PromiseCtor((resolve) => apply(mapSet, waiting, [ticket, resolve]));
    return apply(promiseThen, pending, [
      (reply) => {
        const parsed = jsonParse(reply);
        if (parsed.error !== undefined) {
          const error = new ErrorCtor(parsed.error);
          if (parsed.code !== undefined) error.code = parsed.code;
          apply(weakAdd, opErrors, [error]);
          throw error;
        }
        return parsed.value;
      },
    ]);
  }

  function setFrozen(target, key, value) {
    defineProperty(target, key, { value: value, enumerable: true, writable: false, configurable: false });
  }

  const api = create(null);
  for (const kind of ${JSON.stringify(OPERATION_KINDS)}) {
    setFrozen(api, kind, (id, args) => invoke(kind, id, args));
  }
  // Typed methods are built per top-level name on first use: a large catalogue costs little
  // until a script touches it. Paths never conflict (a leaf is never also a branch).
  function leaf(method) {
    const kind = method.kind;
    const id = method.id;
    return (args) => invoke(kind, id, args);
  }
  function group(methods, depth) {
    const groups = create(null);
    for (const method of methods) {
      const key = method.path[depth];
      if (groups[key] === undefined) groups[key] = [];
      const list = groups[key];
      list[list.length] = method; // no Array.prototype.push: builds may run after user code
    }
    return groups;
  }
  function build(methods, depth) {
    if (methods.length === 1 && methods[0].path.length === depth) return leaf(methods[0]);
    const node = create(null);
    const groups = group(methods, depth);
    for (const key in groups) setFrozen(node, key, build(groups[key], depth + 1));
    return freeze(node);
  }
  const roots = group(jsonParse(methodsJson), 0);
  for (const key in roots) {
    let built;
    const methods = roots[key];
    defineProperty(api, key, {
      enumerable: true,
      configurable: false,
      get() {
        if (built === undefined) built = build(methods, 1);
        return built;
      },
    });
  }
  freeze(api);
  defineProperty(G, namespace, { value: api, enumerable: false, writable: false, configurable: false });

  function format(value) {
    if (typeof value === 'string') return value;
    if (value instanceof ErrorCtor) return StringCtor(value.name) + ': ' + StringCtor(value.message);
    if (value === undefined || typeof value === 'function' || typeof value === 'symbol' || typeof value === 'bigint') {
      return StringCtor(value);
    }
    try {
      const text = jsonStringify(value);
      return typeof text === 'string' ? text : StringCtor(value);
    } catch {
      return StringCtor(value);
    }
  }

  function logger(level) {
    return (...args) => {
      let text = apply(arrayJoin, apply(arrayMap, args, [format]), [' ']);
      if (text.length > maxLogChars) text = apply(stringSlice, text, [0, maxLogChars]);
      bridge('log', level, text);
    };
  }
  const console = create(null);
  for (const level of ['log', 'info', 'warn', 'error', 'debug']) setFrozen(console, level, logger(level));
  freeze(console);
  defineProperty(G, 'console', { value: console, enumerable: false, writable: false, configurable: false });

  return freeze({
    run(fn) {
      return (async () => {
        const result = await fn();
        if (result === undefined) return 'null';
        const text = jsonStringify(result);
        return typeof text === 'string' ? text : 'null';
      })();
    },
    isOpError(error) {
      return apply(weakHas, opErrors, [error]);
    },
    deliver(ticket, reply) {
      const resolve = apply(mapGet, waiting, [ticket]);
      if (resolve === undefined) return;
      apply(mapDelete, waiting, [ticket]);
      resolve(reply);
    },
  });
})`;
