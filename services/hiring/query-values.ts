/** An empty query value (`?email=`) is the same as leaving the parameter out. */
export function given(v: string | undefined): string | undefined {
  return v === undefined || v.trim() === "" ? undefined : v;
}
