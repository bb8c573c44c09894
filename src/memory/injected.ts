// The other blocks of the memory part: workspace memory (shared by the project's sessions) and
// hot session state. Returns rendered text or undefined; must stay light (runs on every prompt).
import type { Session } from '../store/session.js';

export async function loadInjectables(_session: Session): Promise<{ workspace?: string; sessionState?: string }> {
  return {};
}
