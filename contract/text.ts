// Text lengths as people count them: characters (Unicode code points), not the UTF-16 units of `String.length`,
// so an emoji is one character and client and server agree with the schemas' maxLength (which counts code points).

/** The number of characters of `text`; a lone surrogate counts as one, as JSON Schema's maxLength does. */
export function charCount(text: string): number {
  let count = text.length;
  for (let i = 0; i < text.length - 1; i++) {
    const unit = text.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        count--;
        i++;
      }
    }
  }
  return count;
}

/** The first `max` characters of `text`, never half of a surrogate pair (which PostgreSQL's JSON refuses). */
export function clipText(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = 0;
  for (let kept = 0; kept < max && end < text.length; kept++) {
    const unit = text.charCodeAt(end);
    const next = text.charCodeAt(end + 1);
    end += unit >= 0xd800 && unit <= 0xdbff && next >= 0xdc00 && next <= 0xdfff ? 2 : 1;
  }
  return text.slice(0, end);
}
