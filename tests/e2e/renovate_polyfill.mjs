// Renovate 44 and its dependencies call ES2025 built-ins at import time (Set.prototype.union,
// RegExp.escape) that Node 20 lacks; Node 22 has them and this file then changes nothing.
// Loaded before Renovate's own code so that its real code runs on the Node this machine has.
for (const [name, fn] of Object.entries({
  union(o) { const r = new Set(this); for (const x of o.keys()) r.add(x); return r; },
  intersection(o) { const r = new Set(); for (const x of this) if (o.has(x)) r.add(x); return r; },
  difference(o) { const r = new Set(); for (const x of this) if (!o.has(x)) r.add(x); return r; },
  symmetricDifference(o) {
    const r = new Set(this);
    for (const x of o.keys()) { if (this.has(x)) r.delete(x); else r.add(x); }
    return r;
  },
  isSubsetOf(o) { for (const x of this) if (!o.has(x)) return false; return true; },
  isSupersetOf(o) { for (const x of o.keys()) if (!this.has(x)) return false; return true; },
  isDisjointFrom(o) { for (const x of this) if (o.has(x)) return false; return true; },
})) {
  if (!Set.prototype[name]) Object.defineProperty(Set.prototype, name, { value: fn, writable: true, configurable: true });
}
if (!RegExp.escape) RegExp.escape = (s) => String(s).replace(/[\\^$.*+?()[\]{}|\/\-]/g, "\\$&");
