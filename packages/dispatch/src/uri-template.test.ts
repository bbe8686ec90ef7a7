/** RFC 6570 template matching (reverse expansion) for resource templates. */
import { describe, expect, it } from 'vitest';
import { UriTemplate } from './uri-template.js';

describe('UriTemplate', () => {
  it('matches simple expansion', () => {
    const t = new UriTemplate('test://template/{id}/data');
    expect(t.match('test://template/123/data')).toEqual({ id: '123' });
    expect(t.match('test://template/a%20b/data')).toEqual({ id: 'a b' });
    expect(t.match('test://template/1/2/data')).toBeUndefined();
    expect(t.match('test://template/123/other')).toBeUndefined();
    expect(t.variableNames).toEqual(['id']);
  });

  it('matches reserved, path, label, query and fragment operators', () => {
    expect(new UriTemplate('file://{+path}').match('file:///a/b/c.txt')).toEqual({ path: '/a/b/c.txt' });
    expect(new UriTemplate('x://r{/seg*}').match('x://r/a/b')).toEqual({ seg: ['a', 'b'] });
    expect(new UriTemplate('x://host{.ext}').match('x://host.json')).toEqual({ ext: 'json' });
    expect(new UriTemplate('x://s{?q,limit}').match('x://s?q=hi%21&limit=5')).toEqual({
      q: 'hi!',
      limit: '5',
    });
    expect(new UriTemplate('x://s{?q}{&page}').match('x://s?q=a&page=2')).toEqual({ q: 'a', page: '2' });
    expect(new UriTemplate('x://d{#frag}').match('x://d#top')).toEqual({ frag: 'top' });
    expect(new UriTemplate('x://m{;v}').match('x://m;v=1')).toEqual({ v: '1' });
    expect(new UriTemplate('x://{a,b}').match('x://1,2')).toEqual({ a: '1', b: '2' });
  });

  it('escapes regex characters in literals', () => {
    const t = new UriTemplate('x://a.b/{id}');
    expect(t.match('x://aXb/1')).toBeUndefined();
    expect(t.match('x://a.b/1')).toEqual({ id: '1' });
  });

  it('does not match malformed percent-encoding', () => {
    expect(new UriTemplate('x://{id}').match('x://%E0%A4%A')).toBeUndefined();
  });

  it('rejects malformed templates', () => {
    expect(() => new UriTemplate('x://{id')).toThrow(/unclosed/);
    expect(() => new UriTemplate('x://id}')).toThrow(/unbalanced/);
    expect(() => new UriTemplate('x://{bad name}')).toThrow(/bad variable/);
  });
});
