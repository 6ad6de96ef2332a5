// DOM shorthands shared by every part of the page.

export const $ = (id) => document.getElementById(id);

export function el(tag, className, text) {
  const e = document.createElement(tag);
  if (className) e.className = className;
  if (text !== undefined && text !== null) e.textContent = text;
  return e;
}

export function showError(id, message) {
  $(id).textContent = message || '';
}
