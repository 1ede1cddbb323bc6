import fs from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { htmlToMarkdown } from '../../../importers/html/htmlToMarkdown.js';

// Real pages from Readability's test suite, kept in the shared data folder beside the project.
const PAGES = new URL('../../../../shared/data/html/', import.meta.url);
const source = (name: string) => fs.readFileSync(new URL(`${name}/source.html`, PAGES), 'utf8');

// Titles as Cairn stores them: the site suffix gone, the page's own words kept.
const TITLES: Record<string, string> = {
  '001': 'Get your Frontend JavaScript Code Covered | Code',
  'ars-1': 'Just-released Minecraft exploit makes it easy to crash game servers',
  'bbc-1': "Obama admits US gun laws are his 'biggest frustration'",
  'dropbox-blog': 'How we designed Dropbox’s ATF - an async task framework',
  'ebb-org': 'On Recent Controversial Events',
  'firefox-nightly-blog': 'These Weeks in Firefox: Issue 85',
  'google-sre-book-1': 'Google - Site Reliability Engineering',
  'guardian-1': "'What is the sea telling us?': Māori tribes fearful over whale strandings",
  'ietf-1': 'draft-dejong-remotestorage-04 - remoteStorage',
  'keep-tabular-data': 'Friday Facts #282 - 0.17 in sight',
  'medium-1': 'The Open Journalism Project: Better Student Journalism',
  mercurial: 'Evolve: Shared Mutable History',
  'mozilla-1': 'Firefox — Customize and make it your own — The most flexible browser on the Web',
  'nytimes-1': 'United States to Lift Sudan Sanctions',
  wikipedia: 'Mozilla',
};

describe('titles of real pages', () => {
  it('the shared pages are there', () => {
    expect(fs.readdirSync(PAGES).length).toBeGreaterThanOrEqual(Object.keys(TITLES).length);
  });

  it.each(Object.entries(TITLES))('%s', (name, title) => {
    expect(htmlToMarkdown(source(name), { baseUrl: 'https://example.com/' }).title).toBe(title);
  });
});

describe('site suffixes in titles', () => {
  const page = (head: string, body = '<p>Text.</p>') =>
    htmlToMarkdown(`<html><head>${head}</head><body>${body}</body></html>`).title;

  it('strips a <title> suffix after | - – — \\ / > » as Readability does', () => {
    expect(page('<title>Scaling the ingest pipeline to a billion events - Acme Engineering</title>')).toBe(
      'Scaling the ingest pipeline to a billion events',
    );
    expect(page('<title>Scaling the ingest pipeline to a billion events » Acme</title>')).toBe(
      'Scaling the ingest pipeline to a billion events',
    );
    // Too short before the separator: the leading part goes instead, unless that leaves four words or fewer.
    expect(page('<title>Acme | Release notes for the March platform update</title>')).toBe(
      'Release notes for the March platform update',
    );
    expect(page('<title>Pricing - Acme Cloud</title>')).toBe('Pricing - Acme Cloud');
    expect(page('<title>Docs / Guides / Getting started</title>')).toBe('Docs / Guides');
  });

  it('strips a suffix that names the site, or that leaves the page heading, also from og:title', () => {
    expect(
      page(
        '<meta property="og:title" content="Pricing – Acme Cloud"><meta property="og:site_name" content="Acme Cloud">',
      ),
    ).toBe('Pricing');
    expect(page('<title>Pricing - Acme Cloud</title>', '<h1>Pricing</h1><p>Text.</p>')).toBe('Pricing');
    expect(page('<meta property="og:title" content="Why we left - and came back">')).toBe(
      'Why we left - and came back',
    );
  });
});
