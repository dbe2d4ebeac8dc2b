/**
 * A test-only workflow for the payload-codec integration test: it takes an input holding
 * a party's name and returns a result that repeats it, so both the started event's input
 * and the completed event's result carry personal data the codec must seal.
 */
export interface CodecProbeInput {
  readonly caseId: string;
  readonly partyName: string;
}

export async function codecProbe(input: CodecProbeInput): Promise<string> {
  return `timeline requested for ${input.partyName} in ${input.caseId}`;
}
