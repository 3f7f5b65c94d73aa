// Customer ids for named parties, handed out in first-use order: the same band or client keeps
// one id everywhere, and the numbering is as deterministic as the generator.

export class CustomerBook {
  private readonly ids = new Map<string, string>();

  idFor(party: string): string {
    let id = this.ids.get(party);
    if (!id) {
      id = `cust-${String(this.ids.size + 1).padStart(3, '0')}`;
      this.ids.set(party, id);
    }
    return id;
  }
}
