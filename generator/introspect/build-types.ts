import { sortByKey } from '../model/sort.js';
import type { CompositeTypeModel, EnumModel } from '../model/types.js';
import { indexColumnTexts, liveAttributes } from './build-relations.js';
import type { RawCatalog } from './raw-catalog.js';
import type { TypeRefs } from './type-refs.js';

export function buildEnums(raw: RawCatalog): EnumModel[] {
  const exposed = new Set(raw.schemas);
  const enums = raw.introspection.types
    .filter((type) => type.typtype === 'e' && exposed.has(type.getNamespace()?.nspname ?? ''))
    .map(
      (type): EnumModel => ({
        schema: type.getNamespace()?.nspname ?? '',
        name: type.typname,
        values: (type.getEnumValues() ?? [])
          .slice()
          .sort((a, b) => a.enumsortorder - b.enumsortorder)
          .map((value) => value.enumlabel),
        comment: type.getDescription() ?? null,
      }),
    );
  return sortByKey(enums, (e) => [e.schema, e.name]);
}

/** Standalone composite types (`CREATE TYPE ... AS (...)`), not the row types of tables. */
export function buildCompositeTypes(raw: RawCatalog, types: TypeRefs): CompositeTypeModel[] {
  const exposed = new Set(raw.schemas);
  const texts = indexColumnTexts(raw.columnTexts);
  const composites = raw.introspection.types
    .filter((type) => type.typtype === 'c' && exposed.has(type.getNamespace()?.nspname ?? ''))
    .flatMap((type): CompositeTypeModel[] => {
      const cls = type.getClass();
      if (!cls || cls.relkind !== 'c') return [];
      return [
        {
          schema: type.getNamespace()?.nspname ?? '',
          name: type.typname,
          attributes: liveAttributes(cls).map((attribute) => ({
            name: attribute.attname,
            type: types.ref(attribute.atttypid, texts.get(`${cls._id}:${attribute.attnum}`)?.sql),
          })),
          comment: type.getDescription() ?? null,
        },
      ];
    });
  return sortByKey(composites, (c) => [c.schema, c.name]);
}
