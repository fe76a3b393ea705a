/**
 * Demo domain: simulated users, each with a hidden preference a personal agent should learn from
 * their feedback, everyday questions, the correction they give when a reply violates the
 * preference, and the approval they give when it does not.
 *
 * Everything is plain data plus pure functions; randomness comes from a caller-supplied seeded RNG,
 * so a simulation is reproducible. The reply renderers (`renderReply`) are also what the base
 * policy is pretrained on, in all styles, so RL has behaviour to select among.
 */
import { mulberry32, pick, type Rng } from "../engine/rng";

export type PreferenceId = "concise" | "bullets" | "hints" | "signoff";

export interface Question {
  id: string;
  topic: Topic;
  text: string;
  /** short factual sentences a reply is built from */
  facts: readonly string[];
  /** a nudge that does not give the answer away (starts with "Hint:") */
  hint: string;
}

export type Topic = "cooking" | "travel" | "study" | "fitness" | "home" | "money" | "tech" | "garden";

export interface Persona {
  id: string;
  name: string;
  /** who they are (visible to a simulator, not to the agent) */
  description: string;
  preference: PreferenceId;
  /** the hidden preference in words */
  preferenceText: string;
  topics: readonly Topic[];
  /** what they say when a reply violates the preference */
  correction: string;
  /** what they say when it does not */
  approvals: readonly string[];
}

export const SIGN_OFF = "— Cheers!";

const q = (id: string, topic: Topic, text: string, facts: string[], hint: string): Question => ({
  id,
  topic,
  text,
  facts,
  hint,
});

export const QUESTIONS: readonly Question[] = [
  // cooking
  q(
    "boil-egg",
    "cooking",
    "How do I boil an egg?",
    [
      "Put the egg in boiling water.",
      "Cook it for 7 minutes for a firm yolk.",
      "Cool it in cold water before peeling.",
    ],
    "Hint: think about how long the yolk needs to set.",
  ),
  q(
    "rice",
    "cooking",
    "How do I cook rice on the stove?",
    [
      "Use two cups of water per cup of rice.",
      "Simmer it covered for 15 minutes.",
      "Let it rest for 5 minutes, then fluff it.",
    ],
    "Hint: the ratio of water to rice matters most.",
  ),
  q(
    "pasta-salt",
    "cooking",
    "How much salt goes in pasta water?",
    ["Add about one tablespoon per 4 litres.", "It should taste like mild sea water.", "Salt it once the water boils."],
    "Hint: taste the water before the pasta goes in.",
  ),
  q(
    "pancakes",
    "cooking",
    "How do I make fluffy pancakes?",
    ["Do not overmix the batter.", "Let the batter rest for 10 minutes.", "Cook on medium heat until bubbles form."],
    "Hint: lumps in the batter are your friend.",
  ),
  q(
    "avocado",
    "cooking",
    "How can I tell if an avocado is ripe?",
    ["A ripe avocado yields to gentle pressure.", "The stem cap comes off easily.", "Green under the cap means ready."],
    "Hint: try pressing it gently in your palm.",
  ),
  q(
    "soup",
    "cooking",
    "How do I make a quick tomato soup?",
    ["Soften an onion in olive oil.", "Add canned tomatoes and stock.", "Simmer 15 minutes, then blend."],
    "Hint: start with something that builds flavour in the pan.",
  ),
  // travel
  q(
    "pack-light",
    "travel",
    "How do I pack light for a week?",
    ["Pick clothes that mix and match.", "Roll clothes to save space.", "Plan to do laundry once."],
    "Hint: count how many outfits you really need.",
  ),
  q(
    "jet-lag",
    "travel",
    "How can I beat jet lag?",
    ["Shift your sleep before you fly.", "Get daylight when you land.", "Drink water and skip late caffeine."],
    "Hint: light is the strongest signal to your body clock.",
  ),
  q(
    "cheap-flights",
    "travel",
    "How do I find cheap flights?",
    ["Book about two months ahead.", "Be flexible with your dates.", "Compare nearby airports."],
    "Hint: think about which part of your plan could move.",
  ),
  q(
    "passport",
    "travel",
    "What should I do if I lose my passport abroad?",
    [
      "Report it to the local police.",
      "Contact your embassy right away.",
      "Keep a copy of your ID to speed things up.",
    ],
    "Hint: who issues passports for your country abroad?",
  ),
  q(
    "carry-on",
    "travel",
    "What should go in my carry-on bag?",
    [
      "Keep documents and medicine with you.",
      "Pack a charger and a change of clothes.",
      "Liquids must fit the airport limits.",
    ],
    "Hint: what would you need if your checked bag got lost?",
  ),
  q(
    "museum",
    "travel",
    "How do I avoid crowds at museums?",
    ["Go right at opening time.", "Visit on weekday mornings.", "Book tickets online in advance."],
    "Hint: think about when most tourists are still at breakfast.",
  ),
  // study
  q(
    "percent",
    "study",
    "What is 15% of 80?",
    ["10% of 80 is 8.", "5% is half of that, so 4.", "The answer is 12."],
    "Hint: find 10% first, then half of it for 5%.",
  ),
  q(
    "linear",
    "study",
    "How do I solve 3x + 5 = 20?",
    ["Subtract 5 from both sides to get 3x = 15.", "Divide both sides by 3.", "The answer is x = 5."],
    "Hint: get the x term alone on one side first.",
  ),
  q(
    "photosynthesis",
    "study",
    "What does photosynthesis produce?",
    [
      "Plants use light, water and carbon dioxide.",
      "They make glucose for energy.",
      "The answer is glucose and oxygen.",
    ],
    "Hint: think about what plants release that we breathe.",
  ),
  q(
    "triangle",
    "study",
    "What is the area of a triangle with base 6 and height 4?",
    ["The area is half of base times height.", "Half of 6 times 4 is half of 24.", "The answer is 12."],
    "Hint: a triangle is half of a rectangle.",
  ),
  q(
    "fraction",
    "study",
    "What is 1/2 + 1/3?",
    ["Use a common denominator of 6.", "That gives 3/6 + 2/6.", "The answer is 5/6."],
    "Hint: find a number both 2 and 3 divide into.",
  ),
  q(
    "capital",
    "study",
    "Why is Canberra the capital of Australia?",
    [
      "Sydney and Melbourne both wanted it.",
      "Canberra was built as a compromise.",
      "The answer is that it was a compromise site.",
    ],
    "Hint: think about the two biggest rival cities.",
  ),
  q(
    "essay",
    "study",
    "How do I start an essay?",
    ["Open with a clear hook.", "Give some context on the topic.", "End the intro with your main claim."],
    "Hint: what would make a reader want to keep going?",
  ),
  q(
    "exam",
    "study",
    "How should I revise for an exam?",
    ["Test yourself instead of rereading.", "Space your sessions over days.", "Practise old exam questions."],
    "Hint: recalling beats rereading.",
  ),
  // fitness
  q(
    "run-start",
    "fitness",
    "How do I start running?",
    ["Begin with run-walk intervals.", "Go three times a week.", "Add a little time each week."],
    "Hint: start slower than you think you need to.",
  ),
  q(
    "stretch",
    "fitness",
    "Should I stretch before exercise?",
    ["Warm up with light movement first.", "Use dynamic stretches before.", "Save long static stretches for after."],
    "Hint: think about muscles that are still cold.",
  ),
  q(
    "pushups",
    "fitness",
    "How can I do more push-ups?",
    ["Do several easy sets a day.", "Keep your body in a straight line.", "Use knee push-ups to build up."],
    "Hint: frequent practice beats one hard session.",
  ),
  q(
    "water",
    "fitness",
    "How much water should I drink?",
    [
      "Around two litres a day suits most adults.",
      "Drink more when it is hot or you train.",
      "Pale yellow urine is a good sign.",
    ],
    "Hint: your body gives you a colour signal.",
  ),
  q(
    "rest-day",
    "fitness",
    "Do I need rest days?",
    ["Muscles grow during recovery.", "Take one or two rest days a week.", "Light walks are fine on rest days."],
    "Hint: think about when muscles actually repair.",
  ),
  q(
    "sleep",
    "fitness",
    "How can I sleep better?",
    ["Keep a fixed wake-up time.", "Avoid screens an hour before bed.", "Keep the bedroom cool and dark."],
    "Hint: your body clock loves routine.",
  ),
  // home
  q(
    "mould",
    "home",
    "How do I get rid of bathroom mould?",
    ["Scrub it with diluted white vinegar.", "Dry the area well afterwards.", "Air the room after showers."],
    "Hint: mould needs moisture to grow.",
  ),
  q(
    "drain",
    "home",
    "How do I unclog a sink?",
    ["Pour boiling water down first.", "Try baking soda and vinegar.", "Use a plunger if it is still slow."],
    "Hint: start with the gentlest fix.",
  ),
  q(
    "plants-light",
    "home",
    "Where should I put a houseplant?",
    ["Most like bright, indirect light.", "Keep them away from radiators.", "Turn the pot every few weeks."],
    "Hint: think about what direct sun does to leaves.",
  ),
  q(
    "laundry",
    "home",
    "How do I stop clothes from shrinking?",
    ["Wash them in cold water.", "Skip the tumble dryer.", "Dry them flat or on a line."],
    "Hint: heat is the usual culprit.",
  ),
  q(
    "fridge",
    "home",
    "How long do leftovers last in the fridge?",
    ["Most last three to four days.", "Cool them within two hours.", "Reheat until steaming hot."],
    "Hint: think in days, not weeks.",
  ),
  q(
    "energy",
    "home",
    "How can I lower my energy bill?",
    ["Turn the heating down one degree.", "Switch to LED bulbs.", "Run full loads in the washer."],
    "Hint: small steady savings add up.",
  ),
  // money
  q(
    "budget",
    "money",
    "How do I make a simple budget?",
    ["List your monthly income.", "Track what you spend for a month.", "Set a limit for each category."],
    "Hint: you cannot plan what you have not measured.",
  ),
  q(
    "save",
    "money",
    "How can I save more each month?",
    ["Move savings out on payday.", "Cancel unused subscriptions.", "Cook at home more often."],
    "Hint: pay yourself first.",
  ),
  q(
    "emergency",
    "money",
    "How big should an emergency fund be?",
    ["Aim for three to six months of costs.", "Keep it in an easy-access account.", "Start with a small first goal."],
    "Hint: count your monthly essentials first.",
  ),
  q(
    "debt",
    "money",
    "Which debt should I pay off first?",
    ["List debts by interest rate.", "Pay the highest rate first.", "Keep paying the minimum on the rest."],
    "Hint: which debt costs you the most each month?",
  ),
  // tech
  q(
    "password",
    "tech",
    "How do I make a strong password?",
    ["Use a long passphrase of random words.", "Never reuse it on other sites.", "A password manager helps a lot."],
    "Hint: length beats complexity.",
  ),
  q(
    "slow-laptop",
    "tech",
    "Why is my laptop so slow?",
    ["Too many programs may start at boot.", "The disk might be nearly full.", "A restart often helps."],
    "Hint: check what runs when it starts up.",
  ),
  q(
    "backup",
    "tech",
    "How should I back up my photos?",
    ["Keep three copies of your photos.", "Use two kinds of storage.", "Keep one copy off-site or in the cloud."],
    "Hint: what happens if your house floods?",
  ),
  q(
    "wifi",
    "tech",
    "How can I get better wifi at home?",
    ["Put the router high and central.", "Keep it away from thick walls.", "Restart it now and then."],
    "Hint: radio waves do not like obstacles.",
  ),
  q(
    "phone-battery",
    "tech",
    "How do I make my phone battery last?",
    ["Lower the screen brightness.", "Turn off apps running in the background.", "Avoid heat and full drains."],
    "Hint: the screen is the biggest drain.",
  ),
  // garden
  q(
    "tomatoes",
    "garden",
    "How do I grow tomatoes?",
    ["Plant them in full sun.", "Water deeply at the base.", "Stake them as they grow."],
    "Hint: tomatoes love warmth.",
  ),
  q(
    "herbs",
    "garden",
    "Which herbs are easy to grow?",
    ["Basil, mint and chives are easy.", "Mint is best kept in a pot.", "Pick leaves often to keep them bushy."],
    "Hint: some herbs spread a lot.",
  ),
  q(
    "watering",
    "garden",
    "When is the best time to water plants?",
    ["Water early in the morning.", "Soak the roots, not the leaves.", "Water less often but deeply."],
    "Hint: think about the midday sun.",
  ),
  q(
    "compost",
    "garden",
    "How do I start composting?",
    ["Mix green scraps with brown material.", "Keep it as damp as a sponge.", "Turn it every few weeks."],
    "Hint: it needs both greens and browns.",
  ),
];

export const PERSONAS: readonly Persona[] = [
  {
    id: "maya",
    name: "Maya",
    description: "A busy nurse who reads replies on her phone between shifts.",
    preference: "concise",
    preferenceText: "wants short answers: two sentences at most",
    topics: ["cooking", "travel", "tech", "money"],
    correction: "no — shorter please, two sentences at most",
    approvals: ["perfect, thanks!", "great, short and clear", "thanks, that's all I needed"],
  },
  {
    id: "leo",
    name: "Leo",
    description: "A project manager who skims everything and loves checklists.",
    preference: "bullets",
    preferenceText: "wants answers as a bullet list, one point per line",
    topics: ["fitness", "home", "garden", "cooking"],
    correction: "can you put that as a bullet list? one point per line",
    approvals: ["nice, easy to skim — thanks", "perfect list, thanks", "great, that's how I like it"],
  },
  {
    id: "sam",
    name: "Sam",
    description: "A secondary-school student doing homework who wants to learn, not copy.",
    preference: "hints",
    preferenceText: "wants a hint that helps them work it out, not the answer",
    topics: ["study"],
    correction: "don't just give me the answer — give me a hint so I can work it out myself",
    approvals: ["ooh ok, let me try that", "thanks, I think I get it now", "good hint, thanks"],
  },
  {
    id: "ava",
    name: "Ava",
    description: "A cheerful retiree who likes her assistant to sign off warmly.",
    preference: "signoff",
    preferenceText: `wants every reply to end with "${SIGN_OFF}"`,
    topics: ["travel", "fitness", "money", "home", "garden"],
    correction: `please always end your reply with "${SIGN_OFF}"`,
    approvals: ["lovely, thank you!", "that's perfect, thanks dear", "wonderful, thanks!"],
  },
];

export function getPersona(id: string): Persona {
  const p = PERSONAS.find((x) => x.id === id);
  if (!p) throw new Error(`unknown persona ${id}`);
  return p;
}

/**
 * The held-out split: the last two questions of every topic. Simulated users never ask them (so training
 * never sees them as traffic); the persona eval set (server/evaluation/sets.ts) asks only them. The base
 * policy's pretraining corpus covers every question, so the split tests what RL changed, not memory.
 */
export const HELD_OUT_QUESTION_IDS: ReadonlySet<string> = new Set(
  [...new Set(QUESTIONS.map((x) => x.topic))].flatMap((t) =>
    QUESTIONS.filter((x) => x.topic === t)
      .slice(-2)
      .map((x) => x.id),
  ),
);

/** The questions a simulated persona asks (its training traffic): its topics minus the held-out split. */
export function questionsFor(persona: Persona): Question[] {
  return QUESTIONS.filter((x) => persona.topics.includes(x.topic) && !HELD_OUT_QUESTION_IDS.has(x.id));
}

/** The persona's held-out questions (its topics, held-out split only). */
export function heldOutQuestionsFor(persona: Persona): Question[] {
  return QUESTIONS.filter((x) => persona.topics.includes(x.topic) && HELD_OUT_QUESTION_IDS.has(x.id));
}

// ---- preference checks -----------------------------------------------------------------------

function sentences(text: string): string[] {
  return text
    .split(/(?<=[.!?])\s+|\n+/)
    .map((s) => s.trim())
    .filter(Boolean);
}

const BULLET_LINE = /^\s*(?:[-*•]|\d+[.)])\s+\S/;

/** Does this reply respect the persona's hidden preference? Pure and deterministic. */
export function satisfiesPreference(persona: Persona, replyText: string): boolean {
  const text = replyText.trim();
  if (!text) return false;
  switch (persona.preference) {
    case "concise":
      return text.length <= 160 && sentences(text).length <= 2;
    case "bullets":
      return text.split("\n").filter((l) => BULLET_LINE.test(l)).length >= 2;
    case "hints":
      return /^hint\b/i.test(text) && !/\banswer is\b/i.test(text);
    case "signoff":
      return text.endsWith(SIGN_OFF);
  }
}

/** A seeded user turn: which question the persona asks next. */
export function nextQuestion(persona: Persona, rng: Rng): Question {
  return pick(rng, questionsFor(persona));
}

export function personaRng(persona: Persona, seed: number): Rng {
  let h = seed >>> 0;
  for (const ch of persona.id) h = Math.imul(h ^ ch.charCodeAt(0), 0x01000193) >>> 0;
  return mulberry32(h);
}

// ---- reply styles (pretraining corpus and reference replies) ----------------------------------

export type ReplyStyle = "short" | "long" | "bullets" | "hint";
export const REPLY_STYLES: readonly ReplyStyle[] = ["short", "long", "bullets", "hint"];

const OPENERS = ["Good question! ", "Sure. ", "Happy to help. ", ""];
const CLOSERS = [" Let me know if you want more detail.", " Hope that helps.", " Good luck with it."];
const LEADS = ["Here you go:", "Quick list:", "Steps:", ""];

/** Render a reply to `question` in `style`; variation (opener, lead line) comes from `rng`. */
export function renderReply(
  question: Question,
  style: ReplyStyle,
  opts: { signOff?: boolean; rng?: Rng } = {},
): string {
  const rng = opts.rng ?? mulberry32(0);
  let body: string;
  switch (style) {
    case "short":
      body = question.facts.slice(0, rng() < 0.5 ? 1 : 2).join(" ");
      break;
    case "long":
      body = pick(rng, OPENERS) + question.facts.join(" ") + pick(rng, CLOSERS);
      break;
    case "bullets": {
      const lead = pick(rng, LEADS);
      const lines = question.facts.map((f) => `- ${f}`);
      body = (lead ? [lead, ...lines] : lines).join("\n");
      break;
    }
    case "hint":
      body = question.hint;
      break;
  }
  return opts.signOff ? `${body}\n${SIGN_OFF}` : body;
}

/** A reply that satisfies the persona (used by tests and as a demonstration of the target). */
export function preferredReply(persona: Persona, question: Question): string {
  switch (persona.preference) {
    case "concise":
      return renderReply(question, "short");
    case "bullets":
      return renderReply(question, "bullets");
    case "hints":
      return renderReply(question, "hint");
    case "signoff":
      return renderReply(question, "long", { signOff: true });
  }
}

/** Style an instruction asks for, in the words a user (or an OPD hint) would use. */
export const STYLE_INSTRUCTIONS: Record<PreferenceId, readonly string[]> = {
  concise: ["Keep it short, two sentences at most.", "Answer briefly.", "Be concise please."],
  bullets: ["Use a bullet list.", "Answer as a bullet list, one point per line.", "Give me bullet points."],
  hints: ["Just give me a hint, not the answer.", "Don't tell me the answer, give me a hint.", "I want a hint only."],
  signoff: [`End with "${SIGN_OFF}"`, `Sign off with "${SIGN_OFF}"`, `Always finish with "${SIGN_OFF}"`],
};
