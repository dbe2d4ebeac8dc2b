/**
 * Unit tests of the capacity model of docs/scaling.md (scripts/capacity-model.ts): its
 * arithmetic on small inputs whose answers are known by hand, so a broken model fails here
 * rather than printing a plausible table. No IO: the corpus is built from literal counts.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  ASSUMED,
  bindingResource,
  caseStorePlan,
  corpusFrom,
  engineCoreMsPerShardQuery,
  hnswBytesPerVector,
  loadAt,
  MEASURED,
  nodesFor,
  parsePeakRps,
  parsePortalTotals,
  plan,
  renderTable,
  saturatingFirst,
  totalRps,
  vectorPlan,
  type ComponentPlan,
  type Corpus,
  type NodeShape,
} from '../../scripts/capacity-model.ts';

const GiB = 1024 ** 3;
const node: NodeShape = { cores: 4, memoryBytes: 10 * GiB, diskBytes: 100 * GiB };

const CSV = [
  'court,court_name,year,portal_total,raw_json',
  '1_1,Alpha High Court,2022,100,0',
  '1_1,Alpha High Court,2023,200,0',
  '2_2,Beta High Court,2023,50,0',
  '2_2,Beta High Court,2024,300,0',
  '2_2,Beta High Court,2025,400,0',
  '2_2,Beta High Court,2026,7,0',
].join('\n');

function corpus(overrides: Partial<Corpus> = {}): Corpus {
  return { ...corpusFrom(parsePortalTotals(CSV)), ...overrides };
}

function planWith(component: string, cpu: number): ComponentPlan {
  return plan(component, 'engine', { cpuCores: cpu, memoryBytes: 0, diskBytes: 0 }, node, { minNodes: 1, target: 1, layout: '' });
}

describe('nodesFor', () => {
  it('is the ceiling of load over capacity', () => {
    assert.equal(nodesFor(9, 3), 3);
    assert.equal(nodesFor(10, 3), 4);
    assert.equal(nodesFor(0.1, 3), 1);
    assert.equal(nodesFor(0, 3), 0);
  });

  it('refuses a capacity that is not positive', () => {
    assert.throws(() => nodesFor(1, 0), RangeError);
  });
});

describe('plan', () => {
  it('takes enough nodes for the most demanding resource at the target utilisation', () => {
    // cpu: 10 / (4 x 0.5) = 5 nodes; memory: 12 GiB / 5 GiB = 3; disk: 40 / 50 = 1.
    const p = plan('x', 'e', { cpuCores: 10, memoryBytes: 12 * GiB, diskBytes: 40 * GiB }, node, { minNodes: 2, target: 0.5, layout: '' });
    assert.equal(p.nodes, 5);
    assert.equal(p.binding, 'cpu');
    assert.equal(p.utilisation.cpu, 10 / 20);
    assert.equal(p.utilisation.memory, 12 / 50);
    assert.equal(p.utilisation.disk, 40 / 500);
  });

  it('never goes below the minimum for availability', () => {
    const p = plan('x', 'e', { cpuCores: 0.1, memoryBytes: GiB, diskBytes: GiB }, node, { minNodes: 3, target: 0.7, layout: '' });
    assert.equal(p.nodes, 3);
  });

  it('binds on the resource with the highest utilisation', () => {
    assert.equal(bindingResource({ cpu: 0.2, memory: 0.9, disk: 0.5 }), 'memory');
    assert.equal(bindingResource({ cpu: 0.2, memory: 0.1, disk: 0.5 }), 'disk');
  });
});

describe('saturatingFirst', () => {
  it('is the component with the highest binding utilisation', () => {
    // 3 cores on one 4-core node (75%) beats 5 cores on two (62.5%) and 1 on one (25%).
    const plans = [planWith('a', 1), planWith('b', 3), planWith('c', 5)];
    assert.equal(saturatingFirst(plans).component, 'b');
  });

  it('refuses an empty list', () => {
    assert.throws(() => saturatingFirst([]), RangeError);
  });
});

describe('the corpus', () => {
  it('sums portal_total over courts and years', () => {
    const c = corpus();
    assert.equal(c.hcJudgments, 1_057);
    assert.deepEqual(c.hcByCourt, [
      { court: 'Beta High Court', judgments: 757 },
      { court: 'Alpha High Court', judgments: 300 },
    ]);
  });

  it('reads growth from the complete years before the latest, partial one', () => {
    const c = corpus();
    assert.deepEqual(
      c.hcRecentYears.map((y) => y.year),
      [2023, 2024, 2025],
    );
    assert.equal(c.hcGrowthPerYear, (250 + 300 + 400) / 3);
  });

  it('counts the keyword records beyond the judgments as metadata-only', () => {
    const c = corpus();
    assert.equal(c.textJudgments, ASSUMED.scJudgments + 1_057);
    assert.equal(c.metadataRecords, ASSUMED.keywordRecords - ASSUMED.scJudgments - 1_057);
  });

  it('refuses a CSV without portal_total, or with a bad count', () => {
    assert.throws(() => parsePortalTotals('court,court_name,year\n1_1,A,2020'), /portal_total/);
    assert.throws(() => parsePortalTotals('court,court_name,year,portal_total\n1_1,A,2020,-3'), /bad portal_total/);
  });
});

describe('component arithmetic', () => {
  const load = loadAt(1_000);

  it('splits the peak over the route classes without losing any', () => {
    assert.ok(Math.abs(totalRps(load) - 1_000) < 1e-9);
  });

  it('doubles the case store disk when the records and their text double', () => {
    const c = corpus({ keywordRecords: 1_000_000, textChars: 5e9 });
    const twice = corpus({ keywordRecords: 2_000_000, textChars: 10e9 });
    assert.equal(caseStorePlan(twice, load).demand.diskBytes, 2 * caseStorePlan(c, load).demand.diskBytes);
    assert.equal(caseStorePlan(c, load).demand.diskBytes, 2 * (1_000_000 * MEASURED.caseRowBytes + 5e9 * MEASURED.caseTextBytesPerChar));
  });

  it('sizes the HNSW graph as dimensions x 4 bytes plus the measured links per vector', () => {
    assert.equal(hnswBytesPerVector(512), MEASURED.hnswBytesPerVector512);
    assert.equal(hnswBytesPerVector(1536) - hnswBytesPerVector(512), 1024 * 4);
    const c = corpus({ semanticChunks: 1_000_000 });
    assert.equal(vectorPlan(c, load).demand.memoryBytes, 2 * 1_000_000 * MEASURED.hnswBytesPerVector512);
  });

  it('grows the engine cost per shard query by the measured step per tenfold documents', () => {
    const coreMs = (rps: number): number => (MEASURED.benchCores * 1000) / rps;
    const step = coreMs(MEASURED.keywordHttpAt1M) - coreMs(MEASURED.keywordHttpAt100k);
    assert.equal(engineCoreMsPerShardQuery(33_033), MEASURED.meiliCoreMsPerQueryAt33k);
    assert.ok(Math.abs(engineCoreMsPerShardQuery(330_330) - engineCoreMsPerShardQuery(33_033) - step) < 1e-9);
  });
});

describe('the command line and the table', () => {
  it('takes --peak-rps, defaulting to 1,000', () => {
    assert.equal(parsePeakRps([]), 1_000);
    assert.equal(parsePeakRps(['--peak-rps', '250']), 250);
    assert.throws(() => parsePeakRps(['--peak-rps', 'lots']), /positive number/);
  });

  it('prints one row per component', () => {
    const table = renderTable([planWith('a', 1), planWith('b', 3)]);
    const rows = table.split('\n');
    assert.equal(rows.length, 4);
    assert.match(rows[2] ?? '', /^\| a \| engine \|/);
  });
});
