import { randomUUID } from 'node:crypto';
import type { ObjectType as ObjectTypeRow } from '../../generated/sqlite/index.js';
import type { Clock } from '../clock.js';
import { errors, type FieldError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { Db } from '../store/database.js';
import { mentionsForbiddenKey, objectProblems } from './objectRules.js';
import { SchemaCompiler, type CompiledSchema } from './schemaCompiler.js';
import type { RegisterObjectTypeInput } from './schemas.js';
import { SCHEMA_LIMITS, screenSchema } from './schemaScreen.js';
import { TypeCache } from './typeCache.js';

/** Built-in type names with a meaning of their own; no organization may redefine them. */
const RESERVED_TYPE_NAMES = new Set(['external-component']);

export interface ObjectTypeServiceDependencies {
  db: Db;
  clock: Clock;
  logger: Logger;
  /** The `object_types` quota: a type is stored only while the plan has room (402 otherwise). */
  quotas: ObjectTypeQuota;
  /** The rules of the built-in `external-component` objects (components/componentObjects.ts). */
  components: ComponentObjectRules;
}

/** Who writes objects: the role decides what a component lets change (`permissions.props`). */
export type WriterRole = 'host' | 'guest';

/** What object rules need from components: the rules of `external-component` objects. */
export interface ComponentObjectRules {
  /** Problems of objects about to be written over REST, filling in component defaults in place. */
  problems(objects: readonly unknown[], role: WriterRole, fieldOf: (index: number) => string, previous?: (index: number) => unknown): Promise<FieldError[]>;
  /** A synchronous check for a socket write, or null when no component can be involved. */
  checkerFor(updates: Uint8Array[], current: readonly unknown[], role: WriterRole): Promise<ObjectChecker | null>;
}

/** How objects are being written: by whom, where they sit in the request, and (edits) what each was. */
export interface ObjectWriteContext {
  role: WriterRole;
  /** Where object `index` sits in the request (`initial_objects.3`); default the root. */
  fieldOf?: (index: number) => string;
  /** Object `index` as it was before an edit; null or absent for a new one. */
  previous?: (index: number) => unknown;
}

/** What object types need from quotas. */
export interface ObjectTypeQuota {
  /** Runs `create` only if the organization may register one more type, serialized per organization. */
  withRoomForObjectType<T>(organizationId: string, create: (db: Db) => Promise<T>): Promise<T>;
}

/** Checks a board object synchronously (the socket write check runs inside one transaction), against what it was (null: new). */
export type ObjectChecker = (object: unknown, previous: unknown) => FieldError[];

/** An object type as the API shows it. */
export function presentObjectType(row: ObjectTypeRow) {
  return {
    id: row.id,
    typeName: row.typeName,
    displayName: row.displayName,
    category: row.category,
    schema: JSON.parse(row.schema) as Record<string, unknown>,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

/**
 * Custom object types: registration (screened, compiled once, cached), and the one rule on
 * board objects that REST and sockets both call. A type never changes once registered:
 * objects stored under it were checked against exactly that schema, and every instance's
 * cache stays right without invalidation.
 */
export class ObjectTypeService {
  private readonly compiler = new SchemaCompiler();
  private readonly cache: TypeCache;

  constructor(private readonly deps: ObjectTypeServiceDependencies) {
    this.cache = new TypeCache(deps.clock, deps.logger, (organizationId, known) => this.loadNewTypes(organizationId, known));
  }

  async register(organizationId: string, input: RegisterObjectTypeInput) {
    if (RESERVED_TYPE_NAMES.has(input.typeName)) {
      throw invalid('bad_request', [{ field: 'typeName', message: `"${input.typeName}" is a built-in type and cannot be registered` }]);
    }
    const compiled = this.compileNew(input.schema);
    const { clock, quotas } = this.deps;
    if (await this.find(organizationId, input.typeName)) throw alreadyRegistered(input.typeName);
    const now = clock.now();
    const data = {
      id: randomUUID(),
      organizationId,
      typeName: input.typeName,
      displayName: input.displayName,
      category: input.category,
      schema: JSON.stringify(input.schema),
      createdAt: now,
      updatedAt: now,
    };
    let row: ObjectTypeRow;
    try {
      row = await quotas.withRoomForObjectType(organizationId, (db) => db.objectType.create({ data }));
    } catch (error) {
      // Two registrations of one name at once: the unique index lets one through.
      if ((error as { code?: string }).code === 'P2002') throw alreadyRegistered(input.typeName);
      throw error;
    }
    this.cache.add(organizationId, row.typeName, compiled);
    return presentObjectType(row);
  }

  async list(organizationId: string) {
    const rows = await this.deps.db.objectType.findMany({ where: { organizationId }, orderBy: [{ createdAt: 'asc' }, { typeName: 'asc' }] });
    return rows.map(presentObjectType);
  }

  /** One type of the organization; another organization's types do not exist for it (404). */
  async get(organizationId: string, typeName: string) {
    const row = await this.find(organizationId, typeName);
    if (!row) throw errors.notFound('Object type');
    return presentObjectType(row);
  }

  /**
   * Refuses (422) objects that break the rules (objectTypes/objectRules.ts, and the rules of
   * `external-component` objects, whose defaults are filled in), naming each failing field.
   */
  async validateObjects(organizationId: string, objects: readonly unknown[], write: ObjectWriteContext): Promise<void> {
    if (objects.length === 0) return;
    const fieldOf = write.fieldOf ?? (() => '');
    const types = await this.cache.typesOf(organizationId);
    const problems: FieldError[] = [];
    for (const [index, object] of objects.entries()) {
      if (problems.length >= SCHEMA_LIMITS.maxProblems) break;
      problems.push(...objectProblems(object, types, fieldOf(index)));
    }
    if (problems.length === 0) problems.push(...(await this.deps.components.problems(objects, write.role, fieldOf, write.previous)));
    if (problems.length > 0) throw invalid('unprocessable', problems.slice(0, SCHEMA_LIMITS.maxProblems));
  }

  /**
   * The same rules, as a synchronous check bound to the organization's types and the
   * components involved as of now; `current` are the objects the updates touch, as they are.
   */
  async checkerFor(organizationId: string, updates: Uint8Array[], current: readonly unknown[], role: WriterRole): Promise<ObjectChecker | null> {
    // One after the other: both answer from memory on almost every update, and Promise.all allocates on each.
    const types = await this.cache.typesOf(organizationId);
    const components = await this.deps.components.checkerFor(updates, current, role);
    // Without registered types only forbidden keys can be refused, and they would be in the bytes.
    const typed = types.size > 0 || updates.some(mentionsForbiddenKey);
    if (!typed && !components) return null;
    return (object, previous) => {
      const problems = typed ? objectProblems(object, types) : [];
      return problems.length > 0 || !components ? problems : components(object, previous);
    };
  }

  /** Screens and compiles a schema being registered; 400 naming every problem. */
  private compileNew(schema: Record<string, unknown>): CompiledSchema {
    const problems = screenSchema(schema);
    if (problems.length > 0) throw invalid('bad_request', problems);
    try {
      return this.compiler.compile(schema);
    } catch (error) {
      throw invalid('bad_request', [{ field: 'schema', message: (error as Error).message.slice(0, 500) }]);
    }
  }

  private find(organizationId: string, typeName: string): Promise<ObjectTypeRow | null> {
    return this.deps.db.objectType.findUnique({ where: { organizationId_typeName: { organizationId, typeName } } });
  }

  private async loadNewTypes(organizationId: string, known: string[]): Promise<Array<[string, CompiledSchema]>> {
    const rows = await this.deps.db.objectType.findMany({
      where: { organizationId, typeName: { notIn: known } },
      select: { typeName: true, schema: true },
    });
    return rows.map((row) => [row.typeName, this.compileStored(organizationId, row.typeName, row.schema)]);
  }

  /**
   * A stored schema compiled again (another process registered it, or this one restarted).
   * One that no longer compiles refuses every object of its type rather than letting
   * unchecked data in.
   */
  private compileStored(organizationId: string, typeName: string, schema: string): CompiledSchema {
    try {
      return this.compiler.compile(JSON.parse(schema) as Record<string, unknown>);
    } catch (error) {
      this.deps.logger.error({ err: error, organization_id: organizationId, type_name: typeName }, 'stored object type schema does not compile');
      return { problems: (_data, field) => [{ field, message: `cannot be checked: the schema of type "${typeName}" is unusable` }] };
    }
  }
}

function invalid(kind: 'bad_request' | 'unprocessable', problems: FieldError[]) {
  const lines = problems.map((problem) => `${problem.field} ${problem.message}`);
  return kind === 'bad_request' ? errors.badRequest(lines, problems) : errors.unprocessable(lines, problems);
}

function alreadyRegistered(typeName: string) {
  return errors.conflict(`Object type "${typeName}" is already registered; a registered type never changes, register a new typeName instead`);
}
