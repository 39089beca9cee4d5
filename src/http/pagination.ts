/**
 * Laravel's paginated-resource envelope (DESIGN.md "Pagination"): `{ data, links, meta }`, with
 * `page` (default 1) and `per_page` (1 to 100, default 10) in the query. `from`/`to` are null on an
 * empty page. Paging happens in SQL (limit/offset with a stable order); this only shapes the reply.
 */
import { Type, type TSchema } from 'typebox';
import { Nullable } from './schemas.js';

export const PageQuerySchema = {
  // Bounded so an absurd page is a 422, never an offset overflow in SQL.
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_000_000, default: 1 })),
  per_page: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 10 })),
};

export interface PageRequest {
  page: number;
  perPage: number;
}

export function pageOf(query: { page?: number; per_page?: number }): PageRequest {
  return { page: query.page ?? 1, perPage: query.per_page ?? 10 };
}

const LinksSchema = Type.Object({ first: Type.String(), last: Type.String(), prev: Nullable(Type.String()), next: Nullable(Type.String()) });
const MetaSchema = Type.Object({
  current_page: Type.Integer(),
  from: Nullable(Type.Integer()),
  last_page: Type.Integer(),
  links: Type.Array(Type.Object({ url: Nullable(Type.String()), label: Type.String(), active: Type.Boolean() })),
  path: Type.String(),
  per_page: Type.Integer(),
  to: Nullable(Type.Integer()),
  total: Type.Integer(),
});

/** The response schema of a paginated list of `item`, with optional extra top-level fields. */
export function PaginatedSchema<T extends TSchema>(item: T, extra: Record<string, TSchema> = {}) {
  return Type.Object({ data: Type.Array(item), links: LinksSchema, meta: MetaSchema, ...extra });
}

/**
 * The envelope for one page. `path` is the absolute URL of the list; `query` the other query
 * parameters to keep in the links (filters, sort).
 */
export function paginate<T>(items: T[], total: number, request: PageRequest, path: string, query: Record<string, unknown> = {}) {
  const lastPage = Math.max(1, Math.ceil(total / request.perPage));
  const url = (page: number) => {
    const params = new URLSearchParams();
    for (const [key, value] of Object.entries(query)) {
      if (value !== undefined && value !== null && key !== 'page') params.set(key, String(value));
    }
    params.set('page', String(page));
    return `${path}?${params.toString()}`;
  };
  const from = items.length > 0 ? (request.page - 1) * request.perPage + 1 : null;
  return {
    data: items,
    links: {
      first: url(1),
      last: url(lastPage),
      prev: request.page > 1 ? url(request.page - 1) : null,
      next: request.page < lastPage ? url(request.page + 1) : null,
    },
    meta: {
      current_page: request.page,
      from,
      last_page: lastPage,
      links: [
        { url: request.page > 1 ? url(request.page - 1) : null, label: '&laquo; Previous', active: false },
        // A window of pages around the current one, never one entry per page of a huge list.
        ...pageWindow(request.page, lastPage).map((n) => ({ url: url(n), label: String(n), active: n === request.page })),
        { url: request.page < lastPage ? url(request.page + 1) : null, label: 'Next &raquo;', active: false },
      ],
      path,
      per_page: request.perPage,
      to: from === null ? null : from + items.length - 1,
      total,
    },
  };
}

/** Page numbers within 3 of the current page. */
function pageWindow(page: number, lastPage: number): number[] {
  const pages: number[] = [];
  for (let n = Math.max(1, page - 3); n <= Math.min(lastPage, page + 3); n++) pages.push(n);
  return pages;
}
