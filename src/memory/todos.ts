// Pure: the agent's own todo list, kept in hot state. It is the best statement of the current task
// there is, and each agent keeps it with its own tool: Claude Code's TodoWrite (the whole list) or
// TaskCreate/TaskUpdate (one task at a time), Codex's update_plan (the whole plan), OpenCode's
// todowrite (the whole list). A call of an unexpected shape changes nothing and says why.
import { redactSecrets } from './gate.js';
import type { ToolEvent } from './hot-state.js';

export type TodoStatus = 'pending' | 'in_progress' | 'completed';

export interface TodoItem {
  id?: string;
  text: string;
  status: TodoStatus;
}

export type TodoChange = { kind: 'replace'; items: TodoItem[] } | { kind: 'upsert'; id: string; text?: string; status?: TodoStatus } | { kind: 'remove'; id: string };

/** At most this many items are kept, and this many characters of each. */
export const KEEP_TODOS = 30;
const TEXT_MAX = 160;
/** Items shown in the injected block (in progress first, then pending, then the latest done). */
export const SHOW_TODOS = 10;

function statusOf(value: unknown): TodoStatus | undefined {
  const s = typeof value === 'string' ? value.toLowerCase().replace(/[\s-]/g, '_') : '';
  if (s === 'pending' || s === 'todo' || s === 'not_started') return 'pending';
  if (s === 'in_progress' || s === 'inprogress' || s === 'active' || s === 'doing') return 'in_progress';
  if (s === 'completed' || s === 'complete' || s === 'done') return 'completed';
  return undefined;
}

const clean = (text: string) => {
  const one = redactSecrets(text.replace(/\s+/g, ' ').trim());
  return one.length > TEXT_MAX ? one.slice(0, TEXT_MAX - 1) + '…' : one;
};

/** A whole list: items of {content|step|text|subject, status}; anything else is not a list. */
function listOf(value: unknown, textKeys: string[]): TodoItem[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const items: TodoItem[] = [];
  for (const raw of value) {
    if (!raw || typeof raw !== 'object') return undefined;
    const r = raw as Record<string, unknown>;
    const text = textKeys.map((k) => r[k]).find((v): v is string => typeof v === 'string' && v.trim() !== '');
    const status = statusOf(r.status);
    if (!text || !status) return undefined;
    items.push({ ...(typeof r.id === 'string' || typeof r.id === 'number' ? { id: String(r.id) } : {}), text: clean(text), status });
  }
  return items;
}

/**
 * The todo change a tool call makes, or why it makes none (`skipped`) when the tool is a todo tool
 * but its input has an unexpected shape. Other tools: neither.
 */
export function todoChangeFrom(tool: string | undefined, input: unknown, response: unknown): { change?: TodoChange; skipped?: string } {
  const name = (tool ?? '').toLowerCase();
  const i = (input && typeof input === 'object' ? input : {}) as Record<string, unknown>;
  if (name === 'todowrite') {
    const items = listOf(i.todos, ['content', 'text']);
    return items ? { change: { kind: 'replace', items } } : { skipped: `${tool} input without a list of {content, status} todos` };
  }
  if (name === 'update_plan') {
    const items = listOf(i.plan, ['step', 'text']);
    return items ? { change: { kind: 'replace', items } } : { skipped: `${tool} input without a plan of {step, status} items` };
  }
  if (name === 'taskcreate') {
    const r = (response && typeof response === 'object' ? response : {}) as { task?: { id?: unknown } };
    const id = r.task?.id;
    const text = typeof i.subject === 'string' ? i.subject : undefined;
    if ((typeof id !== 'string' && typeof id !== 'number') || !text) return { skipped: `${tool} without a subject and a task id in its response` };
    return { change: { kind: 'upsert', id: String(id), text: clean(text), status: 'pending' } };
  }
  if (name === 'taskupdate') {
    const id = i.taskId;
    if (typeof id !== 'string' && typeof id !== 'number') return { skipped: `${tool} without a taskId` };
    if (i.status === 'deleted') return { change: { kind: 'remove', id: String(id) } };
    const status = statusOf(i.status);
    const text = typeof i.subject === 'string' && i.subject.trim() ? clean(i.subject) : undefined;
    if (!status && !text) return {};
    return { change: { kind: 'upsert', id: String(id), ...(text ? { text } : {}), ...(status ? { status } : {}) } };
  }
  return {};
}

export function applyTodoChange(todos: TodoItem[], change: TodoChange): TodoItem[] {
  if (change.kind === 'replace') return change.items.slice(0, KEEP_TODOS);
  if (change.kind === 'remove') return todos.filter((t) => t.id !== change.id);
  const at = todos.findIndex((t) => t.id === change.id);
  if (at === -1) return change.text ? [...todos, { id: change.id, text: change.text, status: change.status ?? 'pending' }].slice(-KEEP_TODOS) : todos;
  return todos.map((t, k) => (k === at ? { ...t, ...(change.text ? { text: change.text } : {}), ...(change.status ? { status: change.status } : {}) } : t));
}

const MARK: Record<TodoStatus, string> = { in_progress: '[~]', pending: '[ ]', completed: '[x]' };

/** The todo lines of the session state: the work in progress first, then what is pending, then the latest done. */
export function renderTodos(todos: TodoItem[]): string[] {
  if (!todos.length) return [];
  const order: TodoStatus[] = ['in_progress', 'pending', 'completed'];
  const sorted = order.flatMap((s) => {
    const of = todos.filter((t) => t.status === s);
    return s === 'completed' ? of.reverse() : of;
  });
  const shown = sorted.slice(0, SHOW_TODOS);
  const done = todos.filter((t) => t.status === 'completed').length;
  const lines = ['Todo list:', ...shown.map((t) => `- ${MARK[t.status]} ${t.text}`)];
  if (sorted.length > shown.length) lines.push(`- (+${sorted.length - shown.length} more; ${done} of ${todos.length} done)`);
  return lines;
}

/** The todo change of a tool call, as ToolEvent fields (nothing for other tools). */
export function todoFields(tool: string | undefined, input: unknown, response: unknown): Pick<ToolEvent, 'todo' | 'todoSkipped'> {
  const { change, skipped } = todoChangeFrom(tool, input, response);
  return { ...(change ? { todo: change } : {}), ...(skipped ? { todoSkipped: skipped } : {}) };
}
