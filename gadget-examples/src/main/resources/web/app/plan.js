// The agent's plan (the update_plan tool): one checklist per turn, drawn where the plan was
// first written and updated in place, in the same element, by every later update_plan call
// (each of which shows as one short line). A call that failed is shown as a failed tool.
import { el } from './dom.js';

export const PLAN_TOOL = 'update_plan';

const MARKS = { completed: '☑', in_progress: '◐', pending: '☐' };

/** Whether `call` is a plan update the page draws as the turn's checklist. */
export function isPlan(call) {
  return call && call.name === PLAN_TOOL && call.response !== undefined
    && call.response !== null && !call.error && steps(call) !== null;
}

/**
 * The element of a plan block: the turn's checklist the first time, afterwards one line, with
 * the checklist above updated in place.
 */
export function planElement(tv, call) {
  const plan = steps(call);
  if (tv.planEl && tv.planEl.isConnected) {
    fill(tv.planEl, plan, explanation(call));
    const done = plan.filter((s) => s.status === 'completed').length;
    return el('div', 'block plan-update', 'Plan updated: ' + done + ' of ' + plan.length
      + ' completed');
  }
  const d = el('div', 'block plan');
  d.appendChild(el('div', 'plan-title', 'Plan'));
  d.appendChild(el('div', 'plan-explanation'));
  d.appendChild(el('ul', 'plan-steps'));
  fill(d, plan, explanation(call));
  tv.planEl = d;
  return d;
}

function fill(d, plan, why) {
  d.querySelector('.plan-explanation').textContent = why || '';
  const ul = d.querySelector('.plan-steps');
  while (ul.children.length > plan.length) ul.lastChild.remove();
  plan.forEach((s, i) => {
    let li = ul.children[i];
    if (!li) {
      li = el('li', 'plan-step');
      li.appendChild(el('span', 'plan-mark'));
      li.appendChild(el('span', 'plan-text'));
      ul.appendChild(li);
    }
    li.dataset.status = s.status;
    li.querySelector('.plan-mark').textContent = MARKS[s.status] || MARKS.pending;
    li.querySelector('.plan-text').textContent = s.step;
  });
}

function steps(call) {
  try {
    const plan = JSON.parse(call.parameters || '{}').plan;
    if (!Array.isArray(plan)) return null;
    return plan.map((s) => ({ step: String((s && s.step) || ''), status: String((s && s.status) || '') }));
  } catch (e) {
    return null;
  }
}

function explanation(call) {
  try {
    const e = JSON.parse(call.parameters || '{}').explanation;
    return typeof e === 'string' ? e : '';
  } catch (e) {
    return '';
  }
}
