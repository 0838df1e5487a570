import { useEffect, useMemo, useRef } from 'react';
import { loadApiImage } from './blog-image.tsx';
import { API_IMAGE_ATTR, renderMarkdown } from './markdown.ts';

/** A post's Markdown, rendered and sanitised; its blog images fetched with the token and shown from blob: URLs. */
export function MarkdownView({ source, className = 'blog-content' }: { source: string; className?: string }) {
  const html = useMemo(() => renderMarkdown(source), [source]);
  const ref = useRef<HTMLDivElement>(null);

  useEffect(() => {
    const root = ref.current;
    if (!root) return;
    let live = true;
    for (const img of root.querySelectorAll<HTMLImageElement>(`img[${API_IMAGE_ATTR}]`)) {
      loadApiImage(img.getAttribute(API_IMAGE_ATTR)!).then(
        (url) => live && (img.src = url),
        () => live && img.classList.add('blog-image-missing'),
      );
    }
    return () => {
      live = false;
    };
  }, [html]);

  return <div ref={ref} className={className} dangerouslySetInnerHTML={{ __html: html }} />;
}
