"""Tests of arrayflow.optim: optimizers and schedulers against PyTorch's values.

The reference values below (``TORCH_*``) were produced once with PyTorch 2.13.0 (CPU,
float64) by running ``torch.optim.<Name>(params, **options)`` for 5 steps on the problem
``mean((tanh(X @ W + b) - Y) ** 2)`` defined here (``X``, ``Y``, ``W0``, ``B0``), recording
``W.flatten()`` and ``b`` after every step; and the schedulers' ``get_last_lr()[0]``
after construction and after each of 12 ``optimizer.step(); scheduler.step()`` with SGD
at lr=0.1. PyTorch is not needed to run these tests.
"""

from __future__ import annotations

import contextlib
import math

import numpy as np
import pytest
from conftest import forbid_compute, is_lazy, on_backend

import arrayflow as af
import arrayflow.optim as optim
from arrayflow.optim import lr_scheduler

X = [[math.sin(1.0 + i * 3 + j) for j in range(3)] for i in range(4)]
Y = [[math.cos(0.5 * i + j) for j in range(2)] for i in range(4)]
W0 = [[0.1 * (i - j) + 0.05 * i * j for j in range(2)] for i in range(3)]
B0 = [0.2, -0.3]
STEPS = 5

TORCH_TRAJECTORIES = [
    ('SGD',
     {'lr': 0.1}, [
        [-0.0010476733548067769, -0.08854355993120731, 0.09621360442792512, 0.06359856685151175,
         0.19695607683776484, 0.203238233983955, 0.2420984454041046, -0.28551098750617865],
        [-0.0018880360651505994, -0.0781958724189585, 0.09311857876650802, 0.0756539729772157,
         0.19445194054493922, 0.20591767392749566, 0.27981243534601546, -0.27202560329901687],
        [-0.0024934295472132406, -0.0689090838109719, 0.09070249163836468, 0.08625505730801224,
         0.1924464991339735, 0.208086465936773, 0.31363393843192827, -0.2595789477249762],
        [-0.002873153763302476, -0.06061625878213862, 0.08890654079036803, 0.09551114933057551,
         0.19088551058126588, 0.20979581663417698, 0.3440299288300566, -0.2481658550077208],
        [-0.003053695469358693, -0.053238513289699155, 0.08765371594492324, 0.10354299274233927,
         0.18971224398163666, 0.2110973181732331, 0.3714251586802727, -0.2377523881572817],
    ]),
    ('SGD',
     {'lr': 0.1, 'momentum': 0.9}, [
        [-0.0010476733548067769, -0.08854355993120731, 0.09621360442792512, 0.06359856685151175,
         0.19695607683776484, 0.203238233983955, 0.2420984454041046, -0.28551098750617865],
        [-0.0028309420844766986, -0.06788507635704508, 0.08971082275164062, 0.08789268314357626,
         0.19171240969892756, 0.20883208451305516, 0.3177010362097096, -0.25898549205457766],
        [-0.004714630892630609, -0.04114103785392749, 0.0822372268463577, 0.1188135223125724,
         0.18552009630557936, 0.21550124741471058, 0.4157208960718344, -0.2237543441785722],
        [-0.005804236935411421, -0.012061127827702434, 0.07592627413451333, 0.15151024098053148,
         0.17979005774349158, 0.2217535623697258, 0.5245712544442678, -0.18394845262113954],
        [-0.005278232804618576, 0.015494956595077216, 0.07265048686125009, 0.18108994570131098,
         0.17572422277814345, 0.22616144328201787, 0.6342549730464813, -0.14401626691526884],
    ]),
    ('SGD',
     {'dampening': 0.5, 'lr': 0.1, 'momentum': 0.9}, [
        [-0.0010476733548067769, -0.08854355993120731, 0.09621360442792512, 0.06359856685151175,
         0.19695607683776484, 0.203238233983955, 0.2420984454041046, -0.28551098750617865],
        [-0.002410760729304787, -0.07305892011316949, 0.09125833558234918, 0.08186498008072428,
         0.19296447784534038, 0.2074923645412848, 0.2988440412387542, -0.2657281841581586],
        [-0.0038539057387107813, -0.05476194837242917, 0.08579692610410858, 0.1032186803741974,
         0.18850599858597936, 0.2122702998153059, 0.36585368137548124, -0.24195837518074853],
        [-0.005074671504957509, -0.03497435538928009, 0.08057911104120546, 0.12595057408198337,
         0.18408836933206596, 0.21704689600628926, 0.4387912865578651, -0.21565035792944542],
        [-0.005762241464885041, -0.015042327250461151, 0.07632661936619949, 0.14834027105109587,
         0.1801806771766119, 0.22130927766767108, 0.5137330907110618, -0.18832448219735262],
    ]),
    ('SGD',
     {'lr': 0.1, 'momentum': 0.9, 'nesterov': True}, [
        [-0.0019905793741328763, -0.0782327638692939, 0.09280584841305772, 0.07583727701787231,
         0.19421654599175317, 0.2061526445695145, 0.27998704626779874, -0.2724708762617395],
        [-0.00392905080766332, -0.051327874777282435, 0.08523427353042896, 0.10695884047328431,
         0.18797313868900842, 0.2128778604718645, 0.37830547958819777, -0.2370177793007869],
        [-0.004714227702006516, -0.02359211794513953, 0.0798032177117034, 0.13781043822533706,
         0.1828894916190396, 0.2184804824500224, 0.4821293997945928, -0.19853332289098813],
        [-0.0036619924753851854, 0.0012223245129736348, 0.0781039993625376, 0.16371976379282416,
         0.18000107320796283, 0.2216637766871125, 0.5824270800147623, -0.16166337924169458],
        [-0.0006454365782743029, 0.02066052279656556, 0.08063243997028949, 0.18179466652894485,
         0.1797167618920899, 0.2217574016568573, 0.6740321239255159, -0.12986584916489444],
    ]),
    ('SGD',
     {'lr': 0.1, 'weight_decay': 0.1}, [
        [-0.0010476733548067769, -0.08754355993120731, 0.09521360442792512, 0.06309856685151174,
         0.19495607683776484, 0.201238233983955, 0.2400984454041046, -0.28251098750617865],
        [-0.0017568889389084656, -0.07629939173683373, 0.09131730342508912, 0.07457723653623402,
         0.19054473015510817, 0.20194286847029919, 0.2755946841974301, -0.2664431929105362],
        [-0.0021364938341295213, -0.06621328031430478, 0.08824301760878077, 0.08453390510262436,
         0.18670114819939373, 0.20216542930812265, 0.30703759576876327, -0.25179737333760654],
        [-0.0022249431309643796, -0.05720619272753484, 0.08588774382595933, 0.09309354433989338,
         0.1833523893587733, 0.20196188314302596, 0.33493935359183524, -0.23852997944989732],
        [-0.00207071533289445, -0.049184496962064686, 0.0841411842604938, 0.10039520876144285,
         0.18042765369801067, 0.2013888158540436, 0.3597593608823709, -0.22656776188839253],
    ]),
    ('SGD',
     {'lr': 0.1, 'maximize': True}, [
        [0.0010476733548067769, -0.1114564400687927, 0.10378639557207489, 0.03640143314848826,
         0.20304392316223518, 0.19676176601604503, 0.15790155459589542, -0.31448901249382133],
        [0.0021889642502015555, -0.12392938451311443, 0.10811234214166152, 0.021367123187630916,
         0.20657727008006047, 0.19298856578239165, 0.11143626908878905, -0.3298560981670913],
        [0.0032927836093596522, -0.13741560349387125, 0.11283917511992728, 0.004872616087912898,
         0.2105812882361235, 0.18865074432287637, 0.060240022896805474, -0.34599501601364974],
        [0.004136774038841241, -0.15188444753564717, 0.1176976586862856, -0.013073576331671775,
         0.21498739755449361, 0.18372685007294243, 0.004025406551897984, -0.36274656549541184],
        [0.004384635217817397, -0.1672775266475509, 0.12225121778564646, -0.032428639764466145,
         0.2196601333381005, 0.17820475837892036, -0.05736765135525033, -0.3798957435494145],
    ]),
    ('SGD',
     {'lr': 0.1, 'maximize': True, 'momentum': 0.9, 'nesterov': True, 'weight_decay': 0.1}, [
        [0.0019905793741328763, -0.11986723613070611, 0.10529415158694229, 0.023212722982127693,
         0.20198345400824683, 0.19004735543048554, 0.11621295373220125, -0.3218291237382605],
        [0.004427537821401188, -0.1515112101707912, 0.11377999343962648, -0.019795243451254205,
         0.2062579640727754, 0.17398753693691985, -0.01806723476448144, -0.35470252927402723],
        [0.00462160865214922, -0.19639802638181908, 0.12304486739241827, -0.08154780890092396,
         0.21300780674611716, 0.150610370128262, -0.21244441513531498, -0.39751038446424014],
        [-0.004816644574486408, -0.25513554404356514, 0.12393414491985129, -0.16380196062747635,
         0.2198269846809159, 0.11867365575529268, -0.4729039228384989, -0.4460268301327577],
        [-0.0328663862838051, -0.32706908654740013, 0.10344594918092577, -0.2669831017863951,
         0.2217364131470685, 0.0771088440578242, -0.7891431161887295, -0.4912961818836228],
    ]),
    ('Adam',
     {'lr': 0.1}, [
        [-0.09999990455049362, -8.728714237515867e-09, 2.6410334502680044e-08, 0.14999999264628444,
         0.10000003285232967, 0.2999999691189798, 0.29999999762461543, -0.2000000069017811],
        [-0.031112501232738787, 0.0658366072633751, 0.05746475254426366, 0.20343895782403745,
         0.12443216251590689, 0.31061051471775625, 0.39828344374596514, -0.11125229029478656],
        [0.03997786198290994, 0.07610851573852274, 0.11990204194438663, 0.1967780226437089,
         0.16021234246007338, 0.2675703565612394, 0.4927711891992826, -0.05597724939474753],
        [0.08729470020606245, 0.05685770535108077, 0.16058863361500444, 0.16315542645777284,
         0.18106264270893555, 0.20668443609657125, 0.5824043652998554, -0.03935617459210441],
        [0.10652456193893012, 0.028827994411057843, 0.175905246130054, 0.12263706362097329,
         0.18513159763898449, 0.14334797024112175, 0.6667267766883516, -0.05222824115628326],
    ]),
    ('Adam',
     {'amsgrad': True, 'lr': 0.1}, [
        [-0.09999990455049362, -8.728714237515867e-09, 2.6410334502680044e-08, 0.14999999264628444,
         0.10000003285232967, 0.2999999691189798, 0.29999999762461543, -0.2000000069017811],
        [-0.031112501232738787, 0.06581169182089854, 0.05746475254426366, 0.20343895782403745,
         0.12443216251590689, 0.31061051471775625, 0.39828344374596514, -0.11125229029478656],
        [0.03997786198290994, 0.0760882363228131, 0.11990204194438663, 0.19678203768409638,
         0.16021234246007338, 0.26757224988095907, 0.4927711891992826, -0.05597566188069225],
        [0.08729470020606245, 0.056841708740773815, 0.16058863361500444, 0.16316284699628908,
         0.18106264270893555, 0.20668777333888383, 0.5824043652998554, -0.039353342812596295],
        [0.10652456193893012, 0.028815636613406914, 0.175905246130054, 0.12264728539683356,
         0.18513159763898449, 0.14335239303115493, 0.6667267766883516, -0.05222482487558237],
    ]),
    ('Adam',
     {'lr': 0.1, 'weight_decay': 0.1}, [
        [-0.09999990455049362, -8.027975215152416e-09, 2.0892543819983622e-08, 0.1499999923655776,
         0.10000001982583341, 0.2999999192398848, 0.2999999975061378, -0.2000000057178754],
        [-0.030710685911814153, 0.06593105932631661, 0.052701691596065456, 0.19338493616117258,
         0.08781487040268106, 0.24262084980321397, 0.3977894913556683, -0.1093111554214669],
        [0.043064586149868495, 0.08357401006781807, 0.11352848354089404, 0.18132183096406226,
         0.09089651894276583, 0.16543811692987964, 0.49029759738031364, -0.047231605357079834],
        [0.09729090476074387, 0.07515445110758057, 0.15588235858804095, 0.1467321035109151,
         0.08444526142745783, 0.08300552392488594, 0.5751353932297834, -0.024122404966903134],
        [0.12423229610001198, 0.06179939051575688, 0.17318615042450672, 0.11095322682538838,
         0.06588208998547683, 0.008620298452319194, 0.6508480464507423, -0.0333475312169381],
    ]),
    ('Adam',
     {'amsgrad': True,
      'betas': (0.8, 0.9),
      'eps': 1e-06,
      'lr': 0.1,
      'maximize': True,
      'weight_decay': 0.1}, [
        [0.09999045595122828, -0.19999904366072008, 0.1999964112629138, -0.0499992907130791,
         0.29999042166844403, 0.10000190900389908, 0.10000022676484924, -0.39999912961075057],
        [0.18184633697647443, -0.29902889768726165, 0.2850410811870687, -0.14851302040438805,
         0.38555874145957303, 0.0014596315797555243, -0.00016516354233284125, -0.5000720606878561],
        [0.2724888830562635, -0.3988519721946941, 0.3771653957791484, -0.24791959329863394,
         0.47807378630055775, -0.09778953438612789, -0.10036426875406451, -0.5883932213546045],
        [0.3665168747191646, -0.49894114980423476, 0.4723580200986753, -0.348092110364568,
         0.5724513463725035, -0.19786993655035184, -0.19918721180631388, -0.6240954427540626],
        [0.4568591013497054, -0.5994629757761574, 0.5653195595560259, -0.4489630800740769,
         0.6551999081318343, -0.2986702127815679, -0.29398044035454574, -0.5950810335407439],
    ]),
    ('AdamW',
     {'lr': 0.1}, [
        [-0.09999990455049362, 9.999127128576535e-05, -9.997358966550018e-05, 0.14994999264628445,
         0.09980003285232966, 0.29979996911897977, 0.2997999976246154, -0.19970000690178108],
        [-0.031006628093133495, 0.06591749046743252, 0.057383614848875816, 0.20323502610204147,
         0.12418189322072282, 0.31015462325597626, 0.3977896131545199, -0.11082198722601341],
        [0.04012384185832353, 0.07615076894345664, 0.11977703142217566, 0.19642355244939697,
         0.15986031735040246, 0.2668681593502819, 0.49190249292313154, -0.05564549354039233],
        [0.08740819472250541, 0.056917330079446396, 0.16033536272308588, 0.16271120011279477,
         0.1805054449462094, 0.20580414248599865, 0.5810940649267109, -0.039242699675658396],
        [0.10654136216996409, 0.029016456733525778, 0.1754460491039968, 0.12222619205909807,
         0.18426438313936766, 0.14243336463241643, 0.6649183482284468, -0.05231503863163224],
    ]),
    ('AdamW',
     {'amsgrad': True, 'lr': 0.1, 'weight_decay': 0.1}, [
        [-0.09999990455049362, 0.0009999912712857634, -0.0009999735896654982, 0.14949999264628444,
         0.09800003285232967, 0.2979999691189798, 0.29799999762461543, -0.1970000069017811],
        [-0.030054281061148796, 0.0666160784848042, 0.0566607450262859, 0.20140708795689521,
         0.1219444533209364, 0.3060756001284836, 0.39336262987679727, -0.10699039044254108],
        [0.04142584952454865, 0.07650915481722204, 0.11866440574795226, 0.19327389273478404,
         0.15672717262229058, 0.26062855918498834, 0.4841430455911375, -0.052753954413956514],
        [0.08841016398412083, 0.05744808496569116, 0.1580865496261657, 0.15880820924555525,
         0.17556610098163103, 0.19804984944807003, 0.5694299349494794, -0.03831511266027346],
        [0.10668597400320184, 0.030723766176156447, 0.17139380014363398, 0.11869522699895196,
         0.1766205686198606, 0.13449496715289194, 0.6488741551174682, -0.05314213141284844],
    ]),
    ('RMSprop',
     {'lr': 0.01}, [
        [-0.09999904551313576, -8.728707361072008e-08, 2.6410271725119117e-07, 0.14999992646289304,
         0.10000032852232518, 0.29999969119065606, 0.29999997624615937, -0.2000000690177685],
        [-0.00030888562411249265, -0.001567308975963144, 0.09746790873824149, 0.132993905581129,
         0.18314066405324952, 0.24116191396881326, 0.3603006394213007, -0.16499224915369545],
        [-0.005377222785961251, 0.010352313880759375, 0.08707996535499189, 0.13503026849081898,
         0.16114711941778032, 0.21530866268094165, 0.4046751773033185, -0.14822808392822973],
        [0.0005114395257297486, 0.019323712089963918, 0.09071450287024732, 0.13547320047023706,
         0.15905137863228916, 0.1924500522604121, 0.43933093105673626, -0.14246937446098018],
        [0.003867949779561207, 0.027970907346009842, 0.09334987758794888, 0.13653493732228758,
         0.15970287274586034, 0.17293517456181698, 0.46805663908402345, -0.14133296868494374],
    ]),
    ('RMSprop',
     {'centered': True, 'lr': 0.01}, [
        [-0.10050281739782188, 0.0005036933571603702, -0.0005035147555032954, 0.15050370724601547,
         0.0994965503148058, 0.30050346959729585, 0.3005037575321428, -0.19949628818899623],
        [-0.00038580588339003075, -0.0016264933292402632, 0.09726979791986969, 0.1328513386577998,
         0.1828618361566683, 0.24121041131946347, 0.36134907721426357, -0.1645127401133606],
        [-0.005260006167850105, 0.010392556869235134, 0.08716865345241044, 0.1349598654223636,
         0.16134870212238184, 0.2155994521805895, 0.4062420249134453, -0.14780174418225894],
        [0.0005423305250509833, 0.019349514406746905, 0.09077805192830497, 0.13534246182431842,
         0.15940769336790636, 0.19279264118732722, 0.44139416731547854, -0.1422036689954521],
        [0.0038727077912090843, 0.028033528453075378, 0.0934676049024741, 0.13638553030657738,
         0.16031555756169413, 0.1733222589160979, 0.4705864952867347, -0.1411916657933254],
    ]),
    ('RMSprop',
     {'lr': 0.01, 'momentum': 0.9}, [
        [-0.09999904551313576, -8.72870736080833e-08, 2.6410271724577884e-07, 0.14999992646289304,
         0.1000003285223252, 0.29999969119065606, 0.2999999762461593, -0.2000000690177685],
        [-0.0903080265859347, 0.08843261246567062, 0.007468146430686997, 0.22299383939773273,
         0.09314095972334217, 0.3311616360404037, 0.45030061804284405, -0.07499231126968713],
        [-0.019282283643762742, 0.10446057737296735, 0.07785384686589038, 0.2180932386229844,
         0.15040424640396413, 0.2787301119759248, 0.6173231912321536, 0.002723734294395226],
        [0.0599607252011866, 0.06510719272735181, 0.1610483109010309, 0.158660521622984,
         0.23115511475530806, 0.17686264162017218, 0.7775160279995881, 0.01563291909629894],
        [0.12268407784267951, 0.011836196696571105, 0.23444704740240135, 0.0889478520204421,
         0.3188987919665701, 0.07345795819867049, 0.9228738984098711, -0.031003318586297915],
    ]),
    ('RMSprop',
     {'alpha': 0.9, 'centered': True, 'lr': 0.01, 'momentum': 0.5, 'weight_decay': 0.1}, [
        [-0.03333322727856246, -0.06666667558663744, 0.0666666898805929, 0.08333332485064328,
         0.16666668869536022, 0.23333324360004107, 0.2333333305623755, -0.2666666730198607],
        [-0.018380231534322212, -0.029401191949353332, 0.06486928011442612, 0.11856262903645651,
         0.13610760579942893, 0.23036584375815972, 0.27417159785399237, -0.2266941842523001],
        [0.0125045953484213, 0.0006342963402388223, 0.07912818151768145, 0.14282649295643526,
         0.11151896123679275, 0.20055294495146206, 0.31416127759489576, -0.19028899090463433],
        [0.036019684083991095, 0.020411063435451543, 0.08637848976566709, 0.15334101746432746,
         0.087825091781924, 0.16013988002708765, 0.3507630365784892, -0.16164016646118995],
        [0.04654248983595434, 0.031862020835739524, 0.08244181575239333, 0.15392743961248587,
         0.0651613755982868, 0.11919025412806422, 0.38351503373125895, -0.14187112448665368],
    ]),
    ('RMSprop',
     {'lr': 0.01, 'maximize': True}, [
        [0.09999904551313576, -0.1999999127129264, 0.19999973589728276, -0.04999992646289303,
         0.2999996714776748, 0.10000030880934395, 0.10000002375384068, -0.39999993098223147],
        [0.19965271133557533, -0.2847458823997246, 0.2983123564604053, -0.13706226001580418,
         0.39516758724488354, 0.007790201064947086, 0.023535147888345154, -0.4739230883172491],
        [0.28059475631479347, -0.35374010128821365, 0.37769280266664285, -0.20909523583991002,
         0.47180850176997635, -0.07026610861176777, -0.035195943567992036, -0.5154222033616951],
        [0.3427177855246255, -0.4130982879627906, 0.438717606329439, -0.2716876771105531,
         0.5309577268414102, -0.13872114476592695, -0.07989123116323038, -0.5219749299062416],
        [0.39132707068870204, -0.4678754464833393, 0.4865940409341851, -0.3294548909527354,
         0.5775800259260785, -0.20152456820133216, -0.11478400013292742, -0.4938778886625026],
    ]),
]

TORCH_GROUPS_TRAJECTORY = [
    [-0.0010476733548067769, -0.08854355993120731, 0.09621360442792512, 0.06359856685151175,
     0.19695607683776484, 0.203238233983955, 0.20420984454041047, -0.29855109875061786],
    [-0.002670726783007476, -0.06786018441768636, 0.0895667714094556, 0.08785305300879148,
     0.1913965318527664, 0.20876436806728427, 0.21047831988948273, -0.29638054503464467],
    [-0.004161864092530288, -0.04083885541113518, 0.08130268957104185, 0.11885155369574456,
     0.1839574642159333, 0.2152401618599648, 0.2177055782284667, -0.29387224100236364],
    [-0.004732811524751834, -0.010666881052813779, 0.07276117857965421, 0.1522720038455125,
     0.17529841547966524, 0.22118248005978508, 0.2253289820694448, -0.29126077353154745],
    [-0.003672594349356331, 0.019566136618237834, 0.06515871889127008, 0.18397071518888924,
     0.16602294530446268, 0.22520323605248346, 0.23306098491341923, -0.28871294418339594],
]

TORCH_SCHEDULES = {
    'StepLR': [
        0.1, 0.1, 0.1, 0.05,
        0.05, 0.05, 0.025, 0.025,
        0.025, 0.0125, 0.0125, 0.0125,
        0.00625,
    ],
    'CosineAnnealingLR': [
        0.1, 0.08681980515339464, 0.05500000000000001, 0.023180194846605363,
        0.01, 0.023180194846605363, 0.05500000000000002, 0.08681980515339469,
        0.10000000000000006, 0.0868198051533947, 0.05500000000000005, 0.023180194846605412,
        0.01,
    ],
    'LambdaLR': [
        0.1, 0.09100000000000001, 0.08300000000000002, 0.07590000000000002,
        0.06961, 0.06404900000000001, 0.05914410000000001, 0.054829690000000014,
        0.05104672100000001, 0.047742048900000014, 0.04486784401000002, 0.04238105960900001,
        0.040242953648100016,
    ],
}


# --- helpers ---------------------------------------------------------------------------
def make_params():
    w = af.asarray(W0, dtype=af.float64).requires_grad_()
    b = af.asarray(B0, dtype=af.float64).requires_grad_()
    return w, b


def loss_fn(w, b):
    x = af.asarray(X, dtype=af.float64)
    y = af.asarray(Y, dtype=af.float64)
    return af.mean((af.tanh(x @ w + b) - y) ** 2)


def flat(w, b):
    return np.concatenate([np.asarray(w.detach().numpy()).reshape(-1),
                           np.asarray(b.detach().numpy())])


def compute_grads(opt, w, b, backend_name):
    opt.zero_grad()
    with forbid_compute(backend_name):
        loss_fn(w, b).backward()


@contextlib.contextmanager
def count_computes(name):
    """On lazy backends, count scheduler calls (Dask ``persist``/``compute``)."""
    calls = []
    if not is_lazy(name):
        yield calls
        return
    import dask

    def counting_get(dsk, keys, **kwargs):
        calls.append(1)
        return dask.get(dsk, keys, **kwargs)

    with dask.config.set(scheduler=counting_get):
        yield calls


def ids(configs):
    return [f"{n}-" + "-".join(f"{k}={v}" for k, v in kw.items()) for n, kw, _ in configs]


# --- trajectories against PyTorch -----------------------------------------------------------
@pytest.mark.parametrize("backend_name", ["numpy", "strict", "dask"])
@pytest.mark.parametrize("name,options,expected", TORCH_TRAJECTORIES,
                         ids=ids(TORCH_TRAJECTORIES))
def test_trajectory_matches_pytorch(backend_name, name, options, expected):
    with on_backend(backend_name):
        w, b = make_params()
        opt = getattr(optim, name)([w, b], **options)
        for k in range(STEPS):
            compute_grads(opt, w, b, backend_name)
            with count_computes(backend_name) as calls:
                opt.step()
            # one materialization per group on lazy backends, nothing else computed
            assert len(calls) == (1 if is_lazy(backend_name) else 0)
            np.testing.assert_allclose(flat(w, b), expected[k], rtol=1e-12, atol=1e-14)
        assert w.backend.name == backend_name and w.dtype is af.float64
        assert w.requires_grad and w.is_leaf


def test_param_groups_trajectory_matches_pytorch():
    w, b = make_params()
    opt = optim.SGD([{"params": [w]}, {"params": b, "lr": 0.01, "momentum": 0.5}],
                    lr=0.1, momentum=0.9)
    assert [g["lr"] for g in opt.param_groups] == [0.1, 0.01]
    assert opt.param_groups[1]["params"] == [b]
    for k in range(STEPS):
        compute_grads(opt, w, b, "numpy")
        opt.step()
        np.testing.assert_allclose(flat(w, b), TORCH_GROUPS_TRAJECTORY[k], rtol=1e-12,
                                   atol=1e-14)


def test_dask_step_persists_parameters():
    with on_backend("dask", chunks=1):
        w, b = make_params()
        opt = optim.Adam([w, b], lr=0.1, amsgrad=True)
        sizes = []
        for _ in range(20):
            compute_grads(opt, w, b, "dask")
            with count_computes("dask") as calls:
                opt.step()
            assert len(calls) == 1
            sizes.append((len(w.array.__dask_graph__()), len(b.array.__dask_graph__()),
                           len(opt.state[w]["exp_avg"].array.__dask_graph__())))
        assert len(set(sizes)) == 1, sizes
        assert sizes[0][0] == w.array.npartitions


# --- the optimizer base ----------------------------------------------------------------
def test_step_writes_in_place_and_bumps_version():
    w, b = make_params()
    data, v0 = w.data, w._version
    opt = optim.SGD([w, b], lr=0.1)
    compute_grads(opt, w, b, "numpy")
    opt.step()
    assert w._version == v0 + 1
    # .data shares the storage
    np.testing.assert_array_equal(data.detach().numpy(), w.detach().numpy())
    assert w.grad_fn is None and w.requires_grad


def test_step_closure_returns_loss_with_grad_enabled():
    w, b = make_params()
    opt = optim.SGD([w, b], lr=0.1)
    seen = []

    def closure():
        seen.append(af.is_grad_enabled())
        opt.zero_grad()
        loss = loss_fn(w, b)
        loss.backward()
        return loss

    with af.no_grad():
        loss = opt.step(closure)
    assert seen == [True]
    assert isinstance(loss, af.Tensor) and loss.requires_grad
    np.testing.assert_allclose(flat(w, b), TORCH_TRAJECTORIES[0][2][0], rtol=1e-12)
    assert opt.step() is None


def test_params_without_grad_are_skipped():
    w, b = make_params()
    opt = optim.Adam([w, b], lr=0.1)
    w.grad = af.ones_like(w)
    opt.step()
    assert b not in opt.state and opt.state[w]["step"] == 1
    np.testing.assert_array_equal(b.detach().numpy(), np.asarray(B0))


@pytest.mark.parametrize("set_to_none", [True, False])
def test_zero_grad(set_to_none):
    w, b = make_params()
    opt = optim.SGD([w, b])
    loss_fn(w, b).backward()
    g = w.grad
    opt.zero_grad(set_to_none=set_to_none)
    if set_to_none:
        assert w.grad is None and b.grad is None
    else:
        assert w.grad is g
        np.testing.assert_array_equal(w.grad.detach().numpy(), np.zeros((3, 2)))


@pytest.mark.parametrize("backend_name", ["numpy", "strict", "dask"])
def test_state_does_not_alias_grad(backend_name):
    """A momentum buffer that starts as the gradient survives zeroing the gradient in place."""
    with on_backend(backend_name):
        w = af.ones(2, dtype=af.float64).requires_grad_()
        opt = optim.SGD([w], lr=0.1, momentum=0.9)
        w.grad = af.ones(2, dtype=af.float64)
        opt.step()
        opt.zero_grad(set_to_none=False)
        np.testing.assert_array_equal(opt.state[w]["momentum_buffer"].detach().numpy(),
                                      [1.0, 1.0])
        w.grad = af.ones(2, dtype=af.float64)
        opt.step()
        np.testing.assert_allclose(w.detach().numpy(), [1 - 0.1 - 0.19] * 2, rtol=1e-15)


def test_constructor_errors():
    w, b = make_params()
    with pytest.raises(TypeError, match="iterable of Tensors or dicts"):
        optim.SGD(w)
    with pytest.raises(TypeError, match="set"):
        optim.SGD({w, b})
    with pytest.raises(ValueError, match="empty parameter list"):
        optim.SGD([])
    with pytest.raises(TypeError, match="can only optimize Tensors, got int"):
        optim.SGD([w, 3])
    with pytest.raises(ValueError, match="more than one parameter group"):
        optim.SGD([{"params": [w]}, {"params": [w, b]}])
    with pytest.raises(ValueError, match="non-leaf"):
        optim.SGD([w * 2])
    with pytest.raises(ValueError, match="didn't specify a value of required"):
        optim.Optimizer([w], {"lr": optim.required})


def test_add_param_group():
    w, b = make_params()
    opt = optim.Adam([w], lr=0.1)
    opt.add_param_group({"params": b, "betas": (0.5, 0.6)})
    g = opt.param_groups[1]
    assert g["params"] == [b] and g["betas"] == (0.5, 0.6) and g["lr"] == 0.1
    with pytest.raises(ValueError, match="Invalid learning rate: -1"):
        opt.add_param_group({"params": [af.zeros(2)], "lr": -1})
    assert len(opt.param_groups) == 2


@pytest.mark.parametrize("cls,kwargs,message", [
    (optim.SGD, {"lr": -1}, "Invalid learning rate: -1"),
    (optim.SGD, {"momentum": -0.5}, "Invalid momentum value: -0.5"),
    (optim.SGD, {"weight_decay": -1e-3}, "Invalid weight_decay value: -0.001"),
    (optim.SGD, {"nesterov": True}, "Nesterov momentum requires a momentum and zero dampening"),
    (optim.SGD, {"nesterov": True, "momentum": 0.9, "dampening": 0.1},
     "Nesterov momentum requires a momentum and zero dampening"),
    (optim.Adam, {"lr": -0.1}, "Invalid learning rate: -0.1"),
    (optim.Adam, {"eps": -1}, "Invalid epsilon value: -1"),
    (optim.Adam, {"betas": (1.0, 0.9)}, "Invalid beta parameter at index 0: 1.0"),
    (optim.Adam, {"betas": (0.9, -0.1)}, "Invalid beta parameter at index 1: -0.1"),
    (optim.Adam, {"weight_decay": -1}, "Invalid weight_decay value: -1"),
    (optim.AdamW, {"lr": -1}, "Invalid learning rate: -1"),
    (optim.AdamW, {"betas": (0.9, 1.5)}, "Invalid beta parameter at index 1: 1.5"),
    (optim.RMSprop, {"lr": -1}, "Invalid learning rate: -1"),
    (optim.RMSprop, {"eps": -1}, "Invalid epsilon value: -1"),
    (optim.RMSprop, {"momentum": -1}, "Invalid momentum value: -1"),
    (optim.RMSprop, {"weight_decay": -1}, "Invalid weight_decay value: -1"),
    (optim.RMSprop, {"alpha": -1}, "Invalid alpha value: -1"),
])
def test_argument_validation(cls, kwargs, message):
    w, _ = make_params()
    with pytest.raises(ValueError, match=message) as info:
        cls([w], **kwargs)
    assert cls.__name__ in str(info.value) or "Nesterov" in str(info.value)


def test_defaults():
    w, _ = make_params()
    assert optim.SGD([w]).defaults == dict(lr=1e-3, momentum=0, dampening=0, weight_decay=0,
                                           nesterov=False, maximize=False)
    assert optim.Adam([w]).defaults == dict(lr=1e-3, betas=(0.9, 0.999), eps=1e-8,
                                            weight_decay=0, amsgrad=False, maximize=False)
    assert optim.AdamW([w]).defaults["weight_decay"] == 1e-2
    d = optim.RMSprop([w]).defaults
    assert (d["lr"], d["alpha"], d["eps"], d["momentum"], d["centered"]) == (
        1e-2, 0.99, 1e-8, 0, False)


# --- atomic step ---------------------------------------------------------------------
def snapshot(opt, params):
    values = [p.detach().numpy().copy() for p in params]
    versions = [p._version for p in params]
    state = {id(p): {k: (v.detach().numpy().copy() if isinstance(v, af.Tensor) else v)
                     for k, v in s.items()} for p, s in opt.state.items()}
    return values, versions, state


def assert_unchanged(before, after):
    (v0, ver0, s0), (v1, ver1, s1) = before, after
    for a, b in zip(v0, v1):
        np.testing.assert_array_equal(a, b, strict=True)
    assert ver0 == ver1
    assert s0.keys() == s1.keys()
    for key in s0:
        assert s0[key].keys() == s1[key].keys()
        for k in s0[key]:
            np.testing.assert_array_equal(s0[key][k], s1[key][k], strict=True)


@pytest.mark.parametrize("backend_name", ["numpy", "strict", "dask"])
@pytest.mark.parametrize("failure", ["grad_shape", "group_value", "grad_dtype"])
def test_step_is_atomic(backend_name, failure):
    with on_backend(backend_name):
        w, b = make_params()
        opt = optim.Adam([{"params": [w]}, {"params": [b], "lr": 0.01}], lr=0.1,
                         amsgrad=True)
        for _ in range(2):
            compute_grads(opt, w, b, backend_name)
            opt.step()
        compute_grads(opt, w, b, backend_name)
        before = snapshot(opt, [w, b])
        state_objects = {id(p): dict(s) for p, s in opt.state.items()}
        if failure == "grad_shape":  # (assigning .grad checks it: set the slot to corrupt)
            b._grad = af.ones(3, dtype=af.float64)
            error = ValueError
            match = r"Adam.step: the gradient .* shape \(2,\), got \(3,\)"
        elif failure == "grad_dtype":
            b._grad = af.ones(2, dtype=af.float32)
            error = TypeError
            match = "dtype float64, got float32"
        else:
            opt.param_groups[1]["betas"] = (0.9, 1.5)
            error = ValueError
            match = "Invalid beta parameter at index 1: 1.5"
        with pytest.raises(error, match=match):
            opt.step()
        assert_unchanged(before, snapshot(opt, [w, b]))
        for p, s in opt.state.items():
            assert all(s[k] is state_objects[id(p)][k] for k in s)


# --- state dicts -----------------------------------------------------------------------
def test_state_dict_format():
    w, b = make_params()
    opt = optim.Adam([{"params": [w]}, {"params": [b], "lr": 0.01}], lr=0.1, amsgrad=True)
    compute_grads(opt, w, b, "numpy")
    opt.step()
    sd = opt.state_dict()
    assert set(sd) == {"state", "param_groups"}
    assert [g["params"] for g in sd["param_groups"]] == [[0], [1]]
    assert sd["param_groups"][1]["lr"] == 0.01 and sd["param_groups"][0]["amsgrad"] is True
    assert set(sd["state"]) == {0, 1}
    assert set(sd["state"][0]) == {"step", "exp_avg", "exp_avg_sq", "max_exp_avg_sq"}
    assert sd["state"][0]["step"] == 1
    assert isinstance(sd["state"][0]["exp_avg"], af.Tensor)
    assert sd["state"][0]["exp_avg"].shape == (3, 2)


@pytest.mark.parametrize("name,options", [
    ("SGD", {"lr": 0.1, "momentum": 0.9, "nesterov": True}),
    ("Adam", {"lr": 0.1, "amsgrad": True}),
    ("AdamW", {"lr": 0.1}),
    ("RMSprop", {"lr": 0.01, "alpha": 0.9, "centered": True, "momentum": 0.5,
                 "weight_decay": 0.1}),
])
def test_state_dict_round_trip(name, options):
    expected = next(t for n, kw, t in TORCH_TRAJECTORIES if n == name and kw == options)
    w, b = make_params()
    opt = getattr(optim, name)([w, b], **options)
    for _ in range(3):
        compute_grads(opt, w, b, "numpy")
        opt.step()
    sd = opt.state_dict()
    # a fresh optimizer, on fresh parameters with the same values, on another backend
    with on_backend("strict"):
        w2 = af.asarray(w.detach().numpy().tolist(), dtype=af.float64).requires_grad_()
        b2 = af.asarray(b.detach().numpy().tolist(), dtype=af.float64).requires_grad_()
        opt2 = getattr(optim, name)([w2, b2], lr=123.0)
        opt2.load_state_dict(sd)
        assert opt2.param_groups[0]["lr"] == options["lr"]
        assert opt2.param_groups[0]["params"] == [w2, b2]
        for t in opt2.state[w2].values():
            if isinstance(t, af.Tensor):
                assert t.backend.name == "strict"
        for k in range(3, STEPS):
            compute_grads(opt2, w2, b2, "strict")
            opt2.step()
            np.testing.assert_allclose(flat(w2, b2), expected[k], rtol=1e-12, atol=1e-14)
    # the loaded state is a copy: stepping opt2 left opt's state alone
    for _ in range(3, STEPS):
        compute_grads(opt, w, b, "numpy")
        opt.step()
    np.testing.assert_array_equal(flat(w, b), flat(w2, b2))


def test_load_state_dict_mismatch_changes_nothing():
    w, b = make_params()
    opt = optim.SGD([w, b], lr=0.1, momentum=0.9)
    compute_grads(opt, w, b, "numpy")
    opt.step()
    sd = opt.state_dict()
    w2, b2 = make_params()
    other = optim.SGD([{"params": [w2]}, {"params": [b2]}], lr=0.5)
    groups, state = other.param_groups, other.state
    with pytest.raises(ValueError, match="different number of parameter groups: expected 2"):
        other.load_state_dict(sd)
    two = {"state": {}, "param_groups": [dict(sd["param_groups"][0], params=[0, 1]),
                                         dict(sd["param_groups"][0], params=[])]}
    with pytest.raises(ValueError, match=r"param_groups\[0\] expected 1 parameters, got 2"):
        other.load_state_dict(two)
    bad_shape = {"state": {0: {"momentum_buffer": af.zeros(5, dtype=af.float64)}},
                 "param_groups": [dict(sd["param_groups"][0], params=[0]),
                                  dict(sd["param_groups"][0], params=[1])]}
    with pytest.raises(ValueError, match=r"'momentum_buffer' .* shape \(3, 2\), got \(5,\)"):
        other.load_state_dict(bad_shape)
    with pytest.raises(ValueError, match="missing"):
        other.load_state_dict({"state": {}})
    assert other.param_groups is groups and other.state is state
    assert [g["lr"] for g in other.param_groups] == [0.5, 0.5] and other.state == {}


# --- schedulers --------------------------------------------------------------------------
def make_scheduler(name, opt):
    if name == "StepLR":
        return lr_scheduler.StepLR(opt, 3, gamma=0.5)
    if name == "CosineAnnealingLR":
        return lr_scheduler.CosineAnnealingLR(opt, 4, eta_min=0.01)
    return lr_scheduler.LambdaLR(opt, lambda e: 0.9**e + 0.01 * e)


@pytest.mark.parametrize("name", list(TORCH_SCHEDULES))
def test_scheduler_matches_pytorch(name):
    p = af.zeros(1, dtype=af.float64).requires_grad_()
    opt = optim.SGD([p], lr=0.1)
    sched = make_scheduler(name, opt)
    assert sched.last_epoch == 0 and opt.param_groups[0]["initial_lr"] == 0.1
    lrs = [sched.get_last_lr()[0]]
    for _ in range(12):
        opt.step()
        sched.step()
        lrs.append(sched.get_last_lr()[0])
    np.testing.assert_allclose(lrs, TORCH_SCHEDULES[name], rtol=1e-13)
    assert sched.last_epoch == 12 and opt.param_groups[0]["lr"] == lrs[-1]


def test_scheduler_formulas():
    p = af.zeros(1, dtype=af.float64).requires_grad_()
    opt = optim.SGD([p], lr=0.2)
    sched = lr_scheduler.CosineAnnealingLR(opt, 10, eta_min=0.02)
    for t in range(1, 11):
        sched.step()
        assert sched.get_last_lr()[0] == pytest.approx(
            0.02 + (0.2 - 0.02) * (1 + math.cos(math.pi * t / 10)) / 2, rel=1e-12)
    opt = optim.SGD([p], lr=1.0)
    sched = lr_scheduler.StepLR(opt, 2, gamma=0.1)
    for t in range(1, 7):
        sched.step()
        assert sched.get_last_lr()[0] == pytest.approx(0.1 ** (t // 2), rel=1e-12)


def test_scheduler_drives_the_optimizer_lr():
    w = af.ones(2, dtype=af.float64).requires_grad_()
    opt = optim.SGD([w], lr=1.0)
    sched = lr_scheduler.LambdaLR(opt, lambda e: 0.5**e)
    for _ in range(3):
        w.grad = af.ones(2, dtype=af.float64)
        opt.step()
        sched.step()
    np.testing.assert_allclose(w.detach().numpy(), [1 - 1 - 0.5 - 0.25] * 2)


def test_scheduler_state_dict_round_trip():
    p = af.zeros(1, dtype=af.float64).requires_grad_()
    opt = optim.SGD([p], lr=0.1)
    sched = lr_scheduler.StepLR(opt, 3, gamma=0.5)
    for _ in range(4):
        sched.step()
    sd = sched.state_dict()
    assert "optimizer" not in sd and sd["last_epoch"] == 4 and sd["base_lrs"] == [0.1]
    opt2 = optim.SGD([p], lr=0.1)
    opt2.load_state_dict(opt.state_dict())
    sched2 = lr_scheduler.StepLR(opt2, 1, gamma=0.9)
    sched2.load_state_dict(sd)
    assert (sched2.step_size, sched2.gamma, sched2.last_epoch) == (3, 0.5, 4)
    for _ in range(5):
        sched.step()
        sched2.step()
        assert sched2.get_last_lr() == sched.get_last_lr()

    lam = lr_scheduler.LambdaLR(opt, lambda e: 1.0)
    assert lam.state_dict()["lr_lambdas"] == [None]


def test_scheduler_errors():
    p = af.zeros(1, dtype=af.float64).requires_grad_()
    opt = optim.SGD([p], lr=0.1)
    with pytest.raises(KeyError, match=r"'initial_lr' is not specified in param_groups\[0\]"):
        lr_scheduler.StepLR(opt, 3, last_epoch=5)
    with pytest.raises(TypeError, match="StepLR: argument optimizer expected"):
        lr_scheduler.StepLR(object(), 3)
    with pytest.raises(ValueError, match="StepLR: argument step_size expected a positive"):
        lr_scheduler.StepLR(opt, 0)
    with pytest.raises(ValueError, match="LambdaLR: argument lr_lambda expected 1 functions"):
        lr_scheduler.LambdaLR(opt, [lambda e: 1.0, lambda e: 2.0])
    resumed = lr_scheduler.StepLR(opt, 3)
    assert resumed.last_epoch == 0
    opt.param_groups[0]["lr"] = 0.1
    r = lr_scheduler.StepLR(opt, 3, gamma=0.5, last_epoch=5)
    assert r.last_epoch == 6 and r.get_last_lr() == [0.05]
