// A list page's state kept in its address (`?action=event&offset=100`), so that a reload, the back button or a
// link sent to a colleague shows the same: the address with some of its parameters changed.

/** `current` with each of `changes` set, or removed where it is null. */
export function changedParams(
  current: URLSearchParams,
  changes: Record<string, string | null>,
): URLSearchParams {
  const next = new URLSearchParams(current);
  for (const [name, value] of Object.entries(changes)) {
    if (value === null) next.delete(name);
    else next.set(name, value);
  }
  return next;
}
