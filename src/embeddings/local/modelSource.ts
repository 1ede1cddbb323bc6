import { existsSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** Where a local model's files come from: a folder on disk or a Hugging Face Hub repository id. */
export type ModelSource = { kind: 'folder'; path: string } | { kind: 'hub'; id: string };

/** ONNX weight variants transformers.js can load on CPU: `onnx/model.onnx` (fp32) or `onnx/model_quantized.onnx` (q8). */
export type LocalDtype = 'fp32' | 'q8';

/** True when the model setting names a folder (absolute, or starting with `./`, `../`, `~/`) rather than a hub id. */
export function isLocalModelPath(model: string): boolean {
  return path.isAbsolute(model) || /^\.{1,2}([\\/]|$)/.test(model) || /^~([\\/]|$)/.test(model);
}

/** Resolves the model setting to an absolute folder or a hub id (`~` expands to the home directory). */
export function resolveModelSource(model: string, cwd: string = process.cwd()): ModelSource {
  if (!isLocalModelPath(model)) return { kind: 'hub', id: model };
  const expanded = /^~([\\/]|$)/.test(model) ? path.join(os.homedir(), model.slice(1)) : model;
  return { kind: 'folder', path: path.resolve(cwd, expanded) };
}

/** True when `dir` exists and is a directory. */
export function isDirectory(dir: string): boolean {
  try {
    return statSync(dir).isDirectory();
  } catch {
    return false;
  }
}

/**
 * The dtype to request, from the weights already on disk in any of `dirs`: fp32 if `onnx/model.onnx` exists,
 * else q8 if only `onnx/model_quantized.onnx` does; undefined when neither is present (not downloaded yet).
 */
export function pickDtype(dirs: readonly string[]): LocalDtype | undefined {
  if (dirs.some((dir) => existsSync(path.join(dir, 'onnx', 'model.onnx')))) return 'fp32';
  if (dirs.some((dir) => existsSync(path.join(dir, 'onnx', 'model_quantized.onnx')))) return 'q8';
  return undefined;
}
