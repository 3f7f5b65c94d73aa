// One named check of the soak's end state: passed or not, and the figures that say why.
export interface CheckResult {
  name: string;
  pass: boolean;
  detail: string;
}

export const check = (name: string, pass: boolean, detail: string): CheckResult => ({ name, pass, detail });
