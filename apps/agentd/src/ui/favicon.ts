/** The icon browsers fetch from /favicon.ico: a tiny SVG (browsers take SVG there by its content type). */
export const FAVICON_PATH = '/favicon.ico';
export const FAVICON_TYPE = 'image/svg+xml';
export const FAVICON = Buffer.from(
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16">' +
    '<rect width="16" height="16" rx="3" fill="#1f2937"/>' +
    '<path d="M4 12 8 4l4 8M5.5 9h5" stroke="#f9fafb" stroke-width="1.6" fill="none" stroke-linecap="round"/>' +
    '</svg>',
);
