// The image a terminal task runs in under a container provider.
import type { ContainerImage } from "../sandbox/provider";
import type { TerminalTask } from "./spec";

/** Its Dockerfile built with environment/ as the context, else its `docker_image`; null when it has neither. */
export function containerImage(task: TerminalTask): ContainerImage | null {
  if (task.container?.dockerfile) return { dockerfile: task.container.dockerfile, context: task.workspace };
  if (task.container?.image) return { ref: task.container.image };
  return null;
}
