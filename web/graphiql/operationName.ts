// GraphiQL 4.1 learns the operation name from the editor after a 100 ms debounce, so running right after an edit or
// a tab switch sends the previous tab's name and the server answers "Unknown operation named …". The fetcher
// corrects a name that the document does not define when the document has a single operation.
import { Kind, parse } from 'graphql';

/** The operation name to send with `query`: the given one if the document defines it, else its only operation's. */
export function effectiveOperationName(query: string, operationName: string | null | undefined): string | undefined {
  let names: (string | undefined)[];
  try {
    names = parse(query).definitions.flatMap((d) => (d.kind === Kind.OPERATION_DEFINITION ? [d.name?.value] : []));
  } catch {
    return operationName ?? undefined; // the server reports the syntax error
  }
  if (operationName && names.includes(operationName)) return operationName;
  return names.length === 1 ? names[0] : (operationName ?? undefined);
}
