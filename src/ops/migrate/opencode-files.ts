// Pure: the OpenCode working-memory plugin's files (1.x, docs/operations.md) read into what wmem keeps.
// memory-core/<sid>.json blocks goal/progress/context → the task/progress/context sections;
// memory-working/<sid>.json slots and pool (or the older flat `items`) → hot state (files,
// errors) and scratch notes (decisions, todos, dependencies, the rest by relevance);
// workspace-memory.json (1.2+) entries → workspace memory candidates for the gate.
import { isObject } from '../../ui/json.js';

export interface OpenCodeItem {
  type: string;
  content: string;
  timestamp?: number;
  relevanceScore?: number;
  slot?: string;
}

export interface CorePlan {
  sessionId?: string;
  /** section id → text */
  sections: { id: 'task' | 'progress' | 'context'; text: string; from: string }[];
}

export interface NotePlan {
  text: string;
  importance: number;
  tags: string[];
  time?: Date;
}

export interface WorkingPlan {
  sessionId?: string;
  files: string[];
  errors: string[];
  notes: NotePlan[];
}

export interface WorkspaceEntryPlan {
  type: 'feedback' | 'project' | 'decision' | 'reference';
  text: string;
  source: string;
  confidence?: number;
  createdAt?: string;
}

const BLOCK_TO_SECTION = { goal: 'task', progress: 'progress', context: 'context' } as const;

export function planCore(raw: unknown): CorePlan {
  if (!isObject(raw) || !isObject(raw.blocks)) throw new Error('not a memory-core file (no "blocks" object)');
  const sections: CorePlan['sections'] = [];
  for (const [block, id] of Object.entries(BLOCK_TO_SECTION)) {
    const value = raw.blocks[block];
    const text = isObject(value) ? value.value : typeof value === 'string' ? value : undefined;
    if (typeof text === 'string' && text.trim()) sections.push({ id, text: text.trim(), from: block });
  }
  return { sessionId: typeof raw.sessionID === 'string' ? raw.sessionID : undefined, sections };
}

function readItem(value: unknown, slot?: string): OpenCodeItem | undefined {
  if (!isObject(value) || typeof value.content !== 'string' || !value.content.trim()) return undefined;
  return {
    type: typeof value.type === 'string' ? value.type : 'other',
    content: value.content.trim(),
    timestamp: typeof value.timestamp === 'number' ? value.timestamp : undefined,
    relevanceScore: typeof value.relevanceScore === 'number' ? value.relevanceScore : undefined,
    slot,
  };
}

export function planWorking(raw: unknown): WorkingPlan {
  if (!isObject(raw)) throw new Error('not a memory-working file (not a JSON object)');
  const items: OpenCodeItem[] = [];
  if (isObject(raw.slots)) {
    for (const [slot, list] of Object.entries(raw.slots)) if (Array.isArray(list)) for (const v of list) { const item = readItem(v, slot); if (item) items.push(item); }
  }
  if (Array.isArray(raw.pool)) for (const v of raw.pool) { const item = readItem(v, 'pool'); if (item) items.push(item); }
  if (Array.isArray(raw.items)) for (const v of raw.items) { const item = readItem(v); if (item) items.push(item); }
  if (!isObject(raw.slots) && !Array.isArray(raw.pool) && !Array.isArray(raw.items)) throw new Error('not a memory-working file (no "slots", "pool" or "items")');
  const plan: WorkingPlan = { sessionId: typeof raw.sessionID === 'string' ? raw.sessionID : undefined, files: [], errors: [], notes: [] };
  for (const item of items) {
    const time = item.timestamp ? new Date(item.timestamp) : undefined;
    const kind = item.slot && item.slot !== 'pool' ? item.slot : item.type;
    if (item.type === 'file-path') plan.files.push(item.content);
    else if (kind === 'error') plan.errors.push(item.content);
    else if (kind === 'decision') plan.notes.push({ text: item.content, importance: 0.8, tags: ['decisions'], time });
    else if (kind === 'todo') plan.notes.push({ text: `TODO: ${item.content}`, importance: 0.6, tags: ['open'], time });
    else if (kind === 'dependency') plan.notes.push({ text: `Dependency: ${item.content}`, importance: 0.5, tags: ['context'], time });
    else {
      const score = item.relevanceScore ?? 0.5;
      plan.notes.push({ text: item.content, importance: Math.round(Math.min(0.7, Math.max(0.1, score)) * 10) / 10, tags: ['context'], time });
    }
  }
  plan.files = [...new Set(plan.files)];
  plan.errors = [...new Set(plan.errors)];
  return plan;
}

const TYPES = new Set(['feedback', 'project', 'decision', 'reference']);

export function planWorkspace(raw: unknown): WorkspaceEntryPlan[] {
  if (!isObject(raw) || !Array.isArray(raw.entries)) throw new Error('not a workspace-memory.json (no "entries" list)');
  const out: WorkspaceEntryPlan[] = [];
  for (const entry of raw.entries) {
    if (!isObject(entry) || typeof entry.text !== 'string' || !entry.text.trim()) continue;
    const type = typeof entry.type === 'string' && TYPES.has(entry.type) ? (entry.type as WorkspaceEntryPlan['type']) : 'project';
    const rationale = typeof entry.rationale === 'string' && entry.rationale.trim() ? ` (${entry.rationale.trim()})` : '';
    out.push({
      type,
      text: entry.text.trim() + rationale,
      source: typeof entry.source === 'string' ? entry.source : 'manual',
      confidence: typeof entry.confidence === 'number' ? entry.confidence : undefined,
      createdAt: typeof entry.createdAt === 'string' ? entry.createdAt : typeof entry.createdAt === 'number' ? new Date(entry.createdAt).toISOString() : undefined,
    });
  }
  return out;
}
