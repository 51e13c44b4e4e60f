/**
 * The MCP task store of `deep_research` run as a task (the SDK's experimental tasks): the SDK's
 * in-memory store, shared by every session of one server (a task stays bound to the session
 * that created it), where a task set to `cancelled` — by `tasks/cancel`, the client's explicit
 * ask — cancels its run. Nothing else cancels a task's run: a client that goes away leaves it
 * running, its report written as usual.
 */

import { InMemoryTaskStore } from "@modelcontextprotocol/sdk/experimental/tasks/stores/in-memory.js";
import type { Task } from "@modelcontextprotocol/sdk/types.js";

/** How long a task and its result are kept after it is created or finished (ms): one day. */
export const TASK_TTL_MS = 24 * 3600_000;
/** How often a client is told to poll a task (ms). */
export const TASK_POLL_MS = 2000;

/** The task store of one MCP server (stdio) or one HTTP route's sessions. */
export class RunTaskStore extends InMemoryTaskStore {
  private readonly cancels = new Map<string, (reason: string) => void>();

  /** Calls `cancel` when the task is set to cancelled (once); forgotten when it ends otherwise. */
  onCancel(taskId: string, cancel: (reason: string) => void): void {
    this.cancels.set(taskId, cancel);
  }

  /** Forgets the cancel hook of a task whose run has ended. */
  ended(taskId: string): void {
    this.cancels.delete(taskId);
  }

  /** Sets the status message of a working task without changing its status. */
  async note(taskId: string, message: string, sessionId?: string): Promise<void> {
    const task = await this.getTask(taskId, sessionId);
    if (task && task.status === "working")
      await super.updateTaskStatus(taskId, "working", message, sessionId);
  }

  override async updateTaskStatus(
    taskId: string,
    status: Task["status"],
    statusMessage?: string,
    sessionId?: string,
  ): Promise<void> {
    await super.updateTaskStatus(taskId, status, statusMessage, sessionId);
    if (status === "cancelled") {
      const cancel = this.cancels.get(taskId);
      this.cancels.delete(taskId);
      cancel?.("cancelled by the MCP client (tasks/cancel)");
    }
  }

  /** Drops every task and its timers (the server is closing). */
  override cleanup(): void {
    this.cancels.clear();
    super.cleanup();
  }
}
