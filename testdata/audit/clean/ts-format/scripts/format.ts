export interface Options {
  locale?: string;
}

export function formatDate(d: Date, opts: Options = {}): string {
  const locale: string = opts.locale ?? "en-GB";
  return new Intl.DateTimeFormat(locale, { dateStyle: "long" }).format(d);
}
